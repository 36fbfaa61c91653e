package upstream

import (
	"context"
	"crypto/md5"
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"math"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"mdqs/internal/market"
)

// News item types, as the news list's type parameter numbers them.
const (
	NewsFlash        = 1 // 7x24 flash news (快讯, 电报)
	NewsAnnouncement = 2 // company announcements (公告)
)

// Feed names: the namespace of an item's upstream id, and the item's source.
const (
	FeedEastMoney       = "eastmoney"        // np-weblist getFastNewsList
	FeedEastMoneyNotice = "eastmoney_notice" // np-anotice-stock announcements
	FeedCLS             = "cls"              // www.cls.cn telegraph
)

// Status source names of the news clients.
const (
	SourceEastMoneyNews = "eastmoney_news"
	SourceCLS           = "cls"
)

// NewsItem is one item of a news feed.
type NewsItem struct {
	Feed      string // FeedEastMoney, FeedCLS, ...: with UID the item's identity
	UID       string // the upstream's id of the item
	Type      int    // NewsFlash or NewsAnnouncement
	Title     string
	Summary   string
	Body      string // the full text when the feed gives one
	URL       string
	Tags      []string
	Codes     []market.Code // related A-share stocks
	Published time.Time
}

// NewsConfig configures the news clients. Each has its own host.
type NewsConfig struct {
	EastMoney SourceConfig // np-weblist.eastmoney.com
	Notices   SourceConfig // np-anotice-stock.eastmoney.com
	CLS       SourceConfig // www.cls.cn
	// FastColumn is getFastNewsList's column: 102 is all 7x24 news.
	FastColumn string
}

// DefaultNewsConfig: EastMoney's politeness defaults for every host; CLS
// gets 1 request/s, its pages being large and its feed slow.
func DefaultNewsConfig() NewsConfig {
	em := eastMoneyDefaults()
	c := NewsConfig{EastMoney: em, Notices: em, CLS: em, FastColumn: "102"}
	c.EastMoney.BaseURL = "https://np-weblist.eastmoney.com"
	c.Notices.BaseURL = "https://np-anotice-stock.eastmoney.com"
	c.CLS.BaseURL = "https://www.cls.cn"
	c.CLS.Rate = 1
	return c
}

func (c NewsConfig) withDefaults() NewsConfig {
	d := DefaultNewsConfig()
	c.EastMoney = c.EastMoney.withDefaults(d.EastMoney)
	c.Notices = c.Notices.withDefaults(d.Notices)
	c.CLS = c.CLS.withDefaults(d.CLS)
	if c.FastColumn == "" {
		c.FastColumn = d.FastColumn
	}
	return c
}

// EastMoneyNews reads EastMoney's 7x24 fast news and the A-share
// announcement list.
type EastMoneyNews struct {
	fast    *fetcher
	notices *fetcher
	column  string
}

// NewEastMoneyNews builds the client; zero config fields take
// DefaultNewsConfig(), and a nil clock is the system clock.
func NewEastMoneyNews(cfg NewsConfig, lims *Limiters, clock market.Clock) (*EastMoneyNews, error) {
	cfg = cfg.withDefaults()
	fast, err := newFetcher(SourceEastMoneyNews, cfg.EastMoney, lims, clock)
	if err != nil {
		return nil, err
	}
	notices, err := newFetcher(SourceEastMoneyNews, cfg.Notices, lims, clock)
	if err != nil {
		return nil, err
	}
	// One source to the operator: both hosts' calls go into one latency
	// histogram.
	notices.status.latency = fast.status.latency
	return &EastMoneyNews{fast: fast, notices: notices, column: cfg.FastColumn}, nil
}

// Status sums both hosts: one source to the operator.
func (c *EastMoneyNews) Status() Status {
	s := c.fast.snapshot()
	n := c.notices.snapshot()
	s.absorbBreaker(n)
	for k, v := range n.FailuresByKind {
		if s.FailuresByKind == nil {
			s.FailuresByKind = map[Kind]int64{}
		}
		s.FailuresByKind[k] += v
	}
	s.Calls += n.Calls
	s.Failures += n.Failures
	s.Requests += n.Requests
	if n.LastErrorAt.After(s.LastErrorAt) {
		s.LastError, s.LastErrorAt, s.LastErrorKind = n.LastError, n.LastErrorAt, n.LastErrorKind
		s.ConsecutiveFailures = n.ConsecutiveFailures
	}
	if n.LastSuccess.After(s.LastSuccess) {
		s.LastSuccess = n.LastSuccess
	}
	if n.DriftAt.After(s.DriftAt) {
		s.Drift, s.DriftAt = n.Drift, n.DriftAt
	}
	return s
}

const (
	fastNewsPath = "/comm/web/getFastNewsList"
	noticesPath  = "/api/security/ann"
	clsPath      = "/nodeapi/telegraphList"
)

// Flash is one page of the 7x24 fast news, newest first: the newest page
// when cursor is "", else the page before cursor (the previous page's
// next). next is "" when the feed has no more.
//
// Required per item: code (the id), showTime (YYYY-MM-DD HH:MM:SS, +08:00)
// and a title or a summary. stockList secids become codes when they are
// A-share stocks and tags when they are boards (90.BK0428 -> BK0428).
// code "1" is success; any other code is an RC error; data null is the
// end of the list.
func (c *EastMoneyNews) Flash(ctx context.Context, cursor string, size int) (items []NewsItem, next string, err error) {
	size = min(max(size, 1), 200)
	defer c.fast.observe(c.fast.clock.Now(), &err)
	q := url.Values{
		"client":     {"web"},
		"biz":        {"web_724"},
		"fastColumn": {c.column},
		"sortEnd":    {cursor},
		"pageSize":   {strconv.Itoa(size)},
		"req_trace":  {strconv.FormatInt(c.fast.clock.Now().UnixMilli(), 10)},
	}
	chk := &check{}
	err = c.fast.get(ctx, request{path: fastNewsPath, query: q, referer: "https://kuaixun.eastmoney.com/"}, func(body []byte) error {
		var err error
		items, next, err = decodeFastNews(body, chk)
		return err
	})
	if err != nil {
		return nil, "", err
	}
	c.fast.noteDrift(chk)
	return items, next, nil
}

func decodeFastNews(body []byte, chk *check) ([]NewsItem, string, error) {
	var env struct {
		Code    json.RawMessage `json:"code"`
		Message json.RawMessage `json:"message"`
		Data    json.RawMessage `json:"data"`
	}
	if err := decodeJSON(body, &env); err != nil {
		return nil, "", err
	}
	if err := successCode(env.Code, env.Message, "1"); err != nil {
		return nil, "", err
	}
	if isNull(env.Data) {
		return []NewsItem{}, "", nil
	}
	var d struct {
		List json.RawMessage `json:"fastNewsList"`
	}
	if err := json.Unmarshal(env.Data, &d); err != nil {
		return nil, "", schemaErr("data", "not an object")
	}
	if d.List == nil {
		return nil, "", schemaErr("data.fastNewsList", "missing")
	}
	objs, err := objects(d.List, "data.fastNewsList")
	if err != nil {
		return nil, "", err
	}
	items := make([]NewsItem, 0, len(objs))
	next := ""
	for i, m := range objs {
		r := row{m: m, where: "item " + strconv.Itoa(i), c: chk}
		it := NewsItem{Feed: FeedEastMoney, Type: NewsFlash, Tags: []string{}, Codes: []market.Code{}}
		it.UID = r.reqStr("code")
		show := r.reqStr("showTime")
		it.Title = r.optStr("title")
		it.Summary = r.optStr("summary")
		if sort := r.optStr("realSort"); sort != "" {
			next = sort
		}
		if chk.err != nil {
			return nil, "", chk.err
		}
		t, err := market.ParseTime(show)
		if err != nil {
			return nil, "", schemaErr("showTime", "not YYYY-MM-DD HH:MM:SS in %s: %q", r.where, clip(show, 30))
		}
		it.Published = t
		if it.Title == "" && it.Summary == "" {
			return nil, "", schemaErr("title", "neither title nor summary in %s", r.where)
		}
		if it.Title == "" {
			it.Title = headline(it.Summary)
		}
		it.Body = it.Summary
		it.URL = "https://finance.eastmoney.com/a/" + url.PathEscape(it.UID) + ".html"
		for _, id := range stringList(r, "stockList") {
			if code, ok := secidCode(id); ok {
				it.Codes = appendCode(it.Codes, code)
			} else if board, ok := strings.CutPrefix(id, "90."); ok && board != "" {
				it.Tags = appendTag(it.Tags, board)
			}
		}
		items = append(items, it)
	}
	if len(items) == 0 {
		next = ""
	}
	return items, next, nil
}

// Announcements is one page (from 1) of the A-share announcement list,
// newest first. Required per item: art_code, a title (title or title_ch)
// and a time (display_time, else notice_date). codes become the related
// stocks, columns the tags. The list has no text: Body is empty and the URL
// leads to the announcement page. success must be 1.
func (c *EastMoneyNews) Announcements(ctx context.Context, page, size int) (items []NewsItem, err error) {
	page, size = max(page, 1), min(max(size, 1), 100)
	defer c.notices.observe(c.notices.clock.Now(), &err)
	q := url.Values{
		"sr":            {"-1"},
		"page_size":     {strconv.Itoa(size)},
		"page_index":    {strconv.Itoa(page)},
		"ann_type":      {"A"},
		"client_source": {"web"},
		"f_node":        {"0"},
		"s_node":        {"0"},
	}
	chk := &check{}
	err = c.notices.get(ctx, request{path: noticesPath, query: q, referer: "https://data.eastmoney.com/notices/"}, func(body []byte) error {
		var err error
		items, err = decodeNotices(body, chk)
		return err
	})
	if err != nil {
		return nil, err
	}
	c.notices.noteDrift(chk)
	return items, nil
}

func decodeNotices(body []byte, chk *check) ([]NewsItem, error) {
	var env struct {
		Success json.RawMessage `json:"success"`
		Error   json.RawMessage `json:"error"`
		Data    json.RawMessage `json:"data"`
	}
	if err := decodeJSON(body, &env); err != nil {
		return nil, err
	}
	if len(env.Success) > 0 {
		v, st := numOf(env.Success)
		if string(env.Success) == "true" {
			v, st = 1, ok
		}
		if st != ok || v != 1 {
			msg, _ := strOf(env.Error)
			return nil, &Error{Kind: KindRC, RC: int(v), Detail: clip(msg, 120)}
		}
	}
	if isNull(env.Data) {
		return []NewsItem{}, nil
	}
	var d struct {
		List json.RawMessage `json:"list"`
	}
	if err := json.Unmarshal(env.Data, &d); err != nil {
		return nil, schemaErr("data", "not an object")
	}
	if d.List == nil {
		return nil, schemaErr("data.list", "missing")
	}
	objs, err := objects(d.List, "data.list")
	if err != nil {
		return nil, err
	}
	items := make([]NewsItem, 0, len(objs))
	for i, m := range objs {
		r := row{m: m, where: "item " + strconv.Itoa(i), c: chk}
		it := NewsItem{Feed: FeedEastMoneyNotice, Type: NewsAnnouncement, Tags: []string{}, Codes: []market.Code{}}
		it.UID = r.reqStr("art_code")
		it.Title = r.optStr("title")
		if it.Title == "" {
			it.Title = r.optStr("title_ch")
		}
		shown, _ := strOf(m["display_time"])
		notice, _ := strOf(m["notice_date"])
		if chk.err != nil {
			return nil, chk.err
		}
		if it.Title == "" {
			return nil, schemaErr("title", "missing in %s", r.where)
		}
		t, good := noticeTime(shown)
		if !good {
			t, good = noticeTime(notice)
		}
		if !good {
			return nil, schemaErr("display_time", "neither display_time nor notice_date is a time in %s", r.where)
		}
		it.Published = t
		first := ""
		for _, cm := range subObjects(m["codes"], "codes", chk) {
			sym, _ := strOf(cm["stock_code"])
			mkt, _ := strOf(cm["market_code"])
			if first == "" {
				first = sym
			}
			if code, ok := secidCode(mkt + "." + sym); ok {
				it.Codes = appendCode(it.Codes, code)
			}
		}
		for _, col := range subObjects(m["columns"], "columns", chk) {
			if name, _ := strOf(col["column_name"]); name != "" {
				it.Tags = appendTag(it.Tags, name)
			}
		}
		it.URL = "https://data.eastmoney.com/notices/detail/" + url.PathEscape(first) + "/" + url.PathEscape(it.UID) + ".html"
		if first == "" {
			it.URL = "https://data.eastmoney.com/notices/detail/" + url.PathEscape(it.UID) + ".html"
		}
		items = append(items, it)
	}
	return items, nil
}

// noticeTime reads "2026-04-14 17:39:18:800" (display_time, milliseconds
// after a colon) or "2026-04-15 00:00:00" (notice_date).
func noticeTime(s string) (time.Time, bool) {
	if len(s) < 19 {
		return time.Time{}, false
	}
	t, err := market.ParseTime(s[:19])
	return t, err == nil
}

// CLSNews reads the CLS (财联社) telegraph.
type CLSNews struct {
	f *fetcher
}

// NewCLSNews builds the client from cfg.CLS; zero fields take
// DefaultNewsConfig().CLS.
func NewCLSNews(cfg NewsConfig, lims *Limiters, clock market.Clock) (*CLSNews, error) {
	cfg = cfg.withDefaults()
	f, err := newFetcher(SourceCLS, cfg.CLS, lims, clock)
	if err != nil {
		return nil, err
	}
	return &CLSNews{f: f}, nil
}

func (c *CLSNews) Status() Status { return c.f.snapshot() }

// clsSign is the telegraph's request signature: the MD5 hex of the SHA-1
// hex of the encoded query (keys sorted, as url.Values.Encode writes them).
// Without it the feed answers errno 50101.
func clsSign(encoded string) string {
	s := sha1.Sum([]byte(encoded))
	m := md5.Sum([]byte(hex.EncodeToString(s[:])))
	return hex.EncodeToString(m[:])
}

// Flash is one page of the telegraph, newest first: the newest when cursor
// is "", else the items before cursor (the previous page's next, a Unix
// time). Required per item: id (a number), ctime (Unix seconds) and some
// text (title, brief or content); a missing title is taken from the
// 【headline】 that starts the content. errno must be 0. Levels A and B
// (CLS's key items) are tagged 重点.
func (c *CLSNews) Flash(ctx context.Context, cursor string, size int) (items []NewsItem, next string, err error) {
	size = min(max(size, 1), 100)
	defer c.f.observe(c.f.clock.Now(), &err)
	last := cursor
	if last == "" {
		last = strconv.FormatInt(c.f.clock.Now().Unix(), 10)
	}
	q := url.Values{
		"app":          {"CailianpressWeb"},
		"category":     {""},
		"lastTime":     {last},
		"last_time":    {last},
		"os":           {"web"},
		"refresh_type": {"1"},
		"rn":           {strconv.Itoa(size)},
		"sv":           {"7.7.5"},
	}
	q.Set("sign", clsSign(q.Encode()))
	chk := &check{}
	err = c.f.get(ctx, request{path: clsPath, query: q, referer: "https://www.cls.cn/telegraph"}, func(body []byte) error {
		var err error
		items, next, err = decodeCLS(body, chk)
		return err
	})
	if err != nil {
		return nil, "", err
	}
	c.f.noteDrift(chk)
	return items, next, nil
}

func decodeCLS(body []byte, chk *check) ([]NewsItem, string, error) {
	var env struct {
		Errno json.RawMessage `json:"errno"`
		Msg   json.RawMessage `json:"msg"`
		Data  json.RawMessage `json:"data"`
	}
	if err := decodeJSON(body, &env); err != nil {
		return nil, "", err
	}
	if len(env.Errno) == 0 {
		return nil, "", schemaErr("errno", "missing")
	}
	if err := successCode(env.Errno, env.Msg, "0"); err != nil {
		return nil, "", err
	}
	if isNull(env.Data) {
		return []NewsItem{}, "", nil
	}
	var d struct {
		Roll json.RawMessage `json:"roll_data"`
	}
	if err := json.Unmarshal(env.Data, &d); err != nil {
		return nil, "", schemaErr("data", "not an object")
	}
	if d.Roll == nil {
		return nil, "", schemaErr("data.roll_data", "missing")
	}
	objs, err := objects(d.Roll, "data.roll_data")
	if err != nil {
		return nil, "", err
	}
	items := make([]NewsItem, 0, len(objs))
	var oldest int64
	for i, m := range objs {
		r := row{m: m, where: "item " + strconv.Itoa(i), c: chk}
		id := r.reqNum("id")
		ct := r.reqNum("ctime")
		title := stripTags(r.optStr("title"))
		brief := stripTags(r.optStr("brief"))
		content := stripTags(r.optStr("content"))
		level := r.optStr("level")
		share := r.optStr("shareurl")
		if chk.err != nil {
			return nil, "", chk.err
		}
		if math.IsNaN(id) || id < 1 || id != math.Trunc(id) || id > 1e15 {
			return nil, "", schemaErr("id", "not an item id in %s", r.where)
		}
		at, good := unixSeconds(ct)
		if !good {
			return nil, "", schemaErr("ctime", "not Unix seconds in %s", r.where)
		}
		if content == "" {
			content = brief
		}
		if title == "" {
			title = bracketHeadline(content)
		}
		if title == "" {
			title = headline(content)
		}
		if title == "" {
			return nil, "", schemaErr("content", "no title, brief or content in %s", r.where)
		}
		uid := strconv.FormatInt(int64(id), 10)
		it := NewsItem{Feed: FeedCLS, UID: uid, Type: NewsFlash, Title: title, Summary: brief, Body: content,
			URL: share, Tags: []string{}, Codes: []market.Code{}, Published: at}
		if it.Summary == "" {
			it.Summary = headline(content)
		}
		if it.URL == "" {
			it.URL = "https://www.cls.cn/detail/" + uid
		}
		if level == "A" || level == "B" {
			it.Tags = appendTag(it.Tags, "重点")
		}
		for _, s := range subObjects(m["subjects"], "subjects", chk) {
			if name, _ := strOf(s["subject_name"]); name != "" {
				it.Tags = appendTag(it.Tags, name)
			}
		}
		for _, s := range subObjects(m["stock_list"], "stock_list", chk) {
			if sid, _ := strOf(s["StockID"]); sid != "" {
				if code, err := market.ParseCode(sid); err == nil && market.Classify(code) == market.TypeStock {
					it.Codes = appendCode(it.Codes, code)
				}
			}
		}
		items = append(items, it)
		if oldest == 0 || at.Unix() < oldest {
			oldest = at.Unix()
		}
	}
	next := ""
	if oldest > 0 {
		next = strconv.FormatInt(oldest, 10)
	}
	return items, next, nil
}

// successCode checks an envelope's status field against the success value
// (the string "1" for getFastNewsList, the number 0 for CLS); a number or
// a numeric string is accepted for either.
func successCode(raw, message json.RawMessage, want string) error {
	if len(raw) == 0 {
		return schemaErr("code", "missing")
	}
	v, st := numOf(raw)
	if st != ok || v != math.Trunc(v) || math.Abs(v) > 1e9 {
		return schemaErr("code", "not a status code: %s", clip(string(raw), 20))
	}
	w, _ := strconv.Atoi(want)
	if int(v) != w {
		msg, _ := strOf(message)
		return &Error{Kind: KindRC, RC: int(v), Detail: clip(msg, 120)}
	}
	return nil
}

// stringList reads an optional array of strings; another shape is drift.
func stringList(r row, key string) []string {
	raw, present := r.m[key]
	if !present || isNull(raw) {
		return nil
	}
	var out []string
	if err := json.Unmarshal(raw, &out); err != nil {
		r.c.note(key, "not an array of strings")
		return nil
	}
	return out
}

// subObjects reads an optional array of objects; another shape is drift.
func subObjects(raw json.RawMessage, field string, chk *check) []map[string]json.RawMessage {
	if isNull(raw) {
		return nil
	}
	objs, err := objects(raw, field)
	if err != nil {
		chk.note(field, "not an array of objects")
		return nil
	}
	return objs
}

// secidCode reads an EastMoney secid ("1.600519", "0.000001") when it
// names an A-share stock; boards (90.), Hong Kong (116.) and the rest are
// not stocks of this market.
func secidCode(id string) (market.Code, bool) {
	m, sym, found := strings.Cut(strings.TrimSpace(id), ".")
	if !found || (m != "0" && m != "1") || len(sym) != 6 {
		return market.Code{}, false
	}
	code, err := market.ParseCode(m + "." + sym)
	if err != nil || market.Classify(code) != market.TypeStock {
		return market.Code{}, false
	}
	return code, true
}

func appendCode(list []market.Code, c market.Code) []market.Code {
	for _, x := range list {
		if x == c {
			return list
		}
	}
	return append(list, c)
}

func appendTag(list []string, t string) []string {
	for _, x := range list {
		if x == t {
			return list
		}
	}
	return append(list, t)
}

// stripTags removes the HTML markup CLS puts in its texts (<br/>, <b>):
// everything from a '<' to the next '>'.
func stripTags(s string) string {
	if !strings.Contains(s, "<") {
		return s
	}
	var b strings.Builder
	in := false
	for _, r := range s {
		switch {
		case r == '<':
			in = true
		case r == '>' && in:
			in = false
		case !in:
			b.WriteRune(r)
		}
	}
	return strings.TrimSpace(b.String())
}

// bracketHeadline is the 【...】 headline a CLS text starts with, if any.
func bracketHeadline(s string) string {
	rest, found := strings.CutPrefix(strings.TrimSpace(s), "【")
	if !found {
		return ""
	}
	h, _, closed := strings.Cut(rest, "】")
	if !closed {
		return ""
	}
	return strings.TrimSpace(h)
}

// headline shortens a text to a title: up to the first full stop, at most
// 60 characters.
func headline(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexAny(s, "。！？\n"); i > 0 {
		s = s[:i]
	}
	if utf8.RuneCountInString(s) > 60 {
		r := []rune(s)
		s = string(r[:60]) + "…"
	}
	return s
}
