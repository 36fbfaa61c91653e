package db

import (
	"context"
	"database/sql"
	"encoding/json"
	"slices"
	"strings"
	"time"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"mdqs/internal/market"
)

// NewsRecord is one stored news item.
type NewsRecord struct {
	ID        int64
	Feed      string // the upstream feed; with UID the item's identity
	UID       string
	Type      int
	Title     string
	Summary   string
	Body      string
	URL       string
	Tags      []string
	Codes     []market.Code
	Published time.Time
	Fetched   time.Time // first stored
	Updated   time.Time // last changed
}

// same reports whether a stored item already says what r says.
func (r NewsRecord) same(o NewsRecord) bool {
	return r.Type == o.Type && r.Title == o.Title && r.Summary == o.Summary && r.Body == o.Body && r.URL == o.URL &&
		r.Published.UnixMilli() == o.Published.UnixMilli() && slices.Equal(r.Tags, o.Tags) && slices.Equal(r.Codes, o.Codes)
}

// UpsertNews stores items in one transaction, keyed by (feed, upstream
// id): a new item is inserted, a known one updated only when something
// changed, so fetching the same page again inserts nothing. The full-text
// index and the code index follow every insert and update in the same
// transaction.
func (s *Store) UpsertNews(ctx context.Context, items []NewsRecord, now time.Time) (InfoCounts, error) {
	var c InfoCounts
	if len(items) == 0 {
		return c, nil
	}
	err := s.write(ctx, func(tx *sql.Tx) error {
		c = InfoCounts{}
		for _, it := range items {
			if it.Tags == nil {
				it.Tags = []string{}
			}
			if it.Codes == nil {
				it.Codes = []market.Code{}
			}
			old, err := newsByKey(ctx, tx, it.Feed, it.UID)
			switch {
			case market.KindOf(err) == market.KindNotFound:
				id, err := insertNews(ctx, tx, it, now)
				if err != nil {
					return err
				}
				it.ID = id
				c.Inserted++
			case err != nil:
				return err
			case old.same(it):
				c.Unchanged++
				continue
			default:
				it.ID = old.ID
				if err := updateNews(ctx, tx, it, now); err != nil {
					return err
				}
				c.Updated++
			}
			if err := indexNews(ctx, tx, it); err != nil {
				return err
			}
		}
		return nil
	})
	return c, err
}

func insertNews(ctx context.Context, tx *sql.Tx, it NewsRecord, now time.Time) (int64, error) {
	tags, codes := newsJSON(it)
	var id int64
	err := tx.QueryRowContext(ctx, `INSERT INTO news(feed, upstream_id, type, title, summary, body, url, tags, codes,
		published_at, published_day, fetched_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
		it.Feed, it.UID, it.Type, it.Title, it.Summary, it.Body, it.URL, tags, codes, it.Published.UnixMilli(),
		int(market.DayOf(it.Published)), now.UnixMilli(), now.UnixMilli()).Scan(&id)
	return id, classify(err, "insert news")
}

func updateNews(ctx context.Context, tx *sql.Tx, it NewsRecord, now time.Time) error {
	tags, codes := newsJSON(it)
	_, err := tx.ExecContext(ctx, `UPDATE news SET type = ?, title = ?, summary = ?, body = ?, url = ?, tags = ?, codes = ?,
		published_at = ?, published_day = ?, updated_at = ? WHERE id = ?`,
		it.Type, it.Title, it.Summary, it.Body, it.URL, tags, codes, it.Published.UnixMilli(),
		int(market.DayOf(it.Published)), now.UnixMilli(), it.ID)
	return classify(err, "update news")
}

// indexNews rewrites an item's rows in the code index and the full-text
// index.
func indexNews(ctx context.Context, tx *sql.Tx, it NewsRecord) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM news_codes WHERE news_id = ?`, it.ID); err != nil {
		return classify(err, "index news codes")
	}
	for _, c := range it.Codes {
		if _, err := tx.ExecContext(ctx, `INSERT INTO news_codes(code, news_id) VALUES (?, ?) ON CONFLICT DO NOTHING`, c.String(), it.ID); err != nil {
			return classify(err, "index news codes")
		}
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM news_fts WHERE rowid = ?`, it.ID); err != nil {
		return classify(err, "index news text")
	}
	body := it.Body
	if body == "" {
		body = it.Summary
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO news_fts(rowid, title, body) VALUES (?, ?, ?)`, it.ID, ftsSegment(it.Title), ftsSegment(body))
	return classify(err, "index news text")
}

func newsJSON(it NewsRecord) (tags, codes string) {
	t, _ := json.Marshal(it.Tags)
	cs := make([]string, len(it.Codes))
	for i, c := range it.Codes {
		cs[i] = c.String()
	}
	c, _ := json.Marshal(cs)
	return string(t), string(c)
}

const newsColumns = `n.id, n.feed, n.upstream_id, n.type, n.title, n.summary, n.body, n.url, n.tags, n.codes,
	n.published_at, n.fetched_at, n.updated_at`

func scanNews(sc scanner) (NewsRecord, error) {
	var r NewsRecord
	var tags, codes string
	var pub, fetched, updated int64
	if err := sc.Scan(&r.ID, &r.Feed, &r.UID, &r.Type, &r.Title, &r.Summary, &r.Body, &r.URL, &tags, &codes,
		&pub, &fetched, &updated); err != nil {
		return NewsRecord{}, err
	}
	loc := market.Shanghai()
	r.Published, r.Fetched, r.Updated = time.UnixMilli(pub).In(loc), time.UnixMilli(fetched).In(loc), time.UnixMilli(updated).In(loc)
	r.Tags, r.Codes = []string{}, []market.Code{}
	var cs []string
	if json.Unmarshal([]byte(tags), &r.Tags) != nil || json.Unmarshal([]byte(codes), &cs) != nil {
		return NewsRecord{}, market.Errorf(market.KindInternal, "news %d: stored tags or codes are not JSON arrays", r.ID)
	}
	for _, s := range cs {
		c, err := market.ParseCode(s)
		if err != nil {
			return NewsRecord{}, market.Wrap(market.KindInternal, err, "news %d: stored code %q", r.ID, s)
		}
		r.Codes = append(r.Codes, c)
	}
	return r, nil
}

func newsByKey(ctx context.Context, tx *sql.Tx, feed, uid string) (NewsRecord, error) {
	r, err := scanNews(tx.QueryRowContext(ctx, `SELECT `+newsColumns+` FROM news n WHERE n.feed = ? AND n.upstream_id = ?`, feed, uid))
	if err == sql.ErrNoRows {
		return NewsRecord{}, market.Errorf(market.KindNotFound, "news %s/%s", feed, uid)
	}
	return r, classify(err, "read news")
}

// NewsByID is one item. None is a not-found error.
func (s *Store) NewsByID(ctx context.Context, id int64) (NewsRecord, error) {
	r, err := scanNews(s.r.QueryRowContext(ctx, `SELECT `+newsColumns+` FROM news n WHERE n.id = ?`, id))
	if err == sql.ErrNoRows {
		return NewsRecord{}, market.E(market.KindNotFound, "not found")
	}
	return r, classify(err, "read news")
}

// NewsQuery selects news items; zero fields do not filter. Items come
// newest first.
type NewsQuery struct {
	Type   int
	Day    market.Day  // published on this Shanghai day
	Code   market.Code // related to this stock
	Search string      // full-text search of titles and bodies (see FTSQuery)
	Offset int
	Limit  int // 0: all
}

// News lists the items q selects and how many there are in all.
func (s *Store) News(ctx context.Context, q NewsQuery) ([]NewsRecord, int, error) {
	from := `news n`
	var f filter
	if q.Search != "" {
		phrases, err := ftsPhrases(q.Search)
		if err != nil {
			return nil, 0, err
		}
		from = `news n JOIN news_fts f ON f.rowid = n.id`
		if s.dialect == postgresDialect {
			// The same segmented text, in the 'simple' configuration: each
			// phrase's tokens adjacent and in order, as FTS5's phrase.
			for _, p := range phrases {
				f.and("f.tsv @@ phraseto_tsquery('simple', ?)", p)
			}
		} else {
			f.and("news_fts MATCH ?", ftsMatch(phrases))
		}
	}
	if q.Type != 0 {
		f.and("n.type = ?", q.Type)
	}
	if q.Day != 0 {
		f.and("n.published_day = ?", int(q.Day))
	}
	if !q.Code.IsZero() {
		f.and("n.id IN (SELECT news_id FROM news_codes WHERE code = ?)", q.Code.String())
	}
	total, err := s.count(ctx, from, f, "count news")
	if err != nil || total == 0 {
		return []NewsRecord{}, 0, err
	}
	args := f.args
	query := `SELECT ` + newsColumns + ` FROM ` + from + ` WHERE ` + f.where() + ` ORDER BY n.published_at DESC, n.id DESC`
	if q.Limit > 0 {
		query += ` LIMIT ? OFFSET ?`
		args = append(args, q.Limit, q.Offset)
	}
	rows, err := s.r.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, 0, classify(err, "read news")
	}
	defer rows.Close()
	out := []NewsRecord{}
	for rows.Next() {
		r, err := scanNews(rows)
		if err != nil {
			return nil, 0, classify(err, "read news")
		}
		out = append(out, r)
	}
	return out, total, classify(rows.Err(), "read news")
}

// PruneNews deletes the items published before t, with their index rows.
func (s *Store) PruneNews(ctx context.Context, before time.Time) (int, error) {
	var n int64
	err := s.write(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM news_fts WHERE rowid IN (SELECT id FROM news WHERE published_at < ?)`,
			before.UnixMilli()); err != nil {
			return classify(err, "prune news text")
		}
		// news_codes rows go with their items (ON DELETE CASCADE).
		res, err := tx.ExecContext(ctx, `DELETE FROM news WHERE published_at < ?`, before.UnixMilli())
		if err != nil {
			return classify(err, "prune news")
		}
		n, _ = res.RowsAffected()
		return nil
	})
	return int(n), err
}

// ftsSegment prepares text for the full-text index. FTS5's unicode61
// tokenizer splits on what is not a letter or digit, so a run of Chinese
// characters (no spaces between words) would be one token and "光伏"
// would not find "光伏板块". Each CJK character therefore becomes a token
// of its own; other letters and digits stay words. Width and case are
// folded (ＡＢＣ is abc), everything else separates tokens.
func ftsSegment(s string) string {
	s = norm.NFKC.String(s)
	var b strings.Builder
	b.Grow(len(s) * 2)
	space := true // the builder ends with a separator
	sep := func() {
		if !space {
			b.WriteByte(' ')
			space = true
		}
	}
	for _, r := range s {
		switch {
		case isCJK(r):
			sep()
			b.WriteRune(r)
			space = false
			sep()
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(unicode.ToLower(r))
			space = false
		default:
			sep()
		}
	}
	return strings.TrimSpace(b.String())
}

func isCJK(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}

// FTSQuery turns a user's search text into an FTS5 query: every
// whitespace-separated term must occur (AND), each as a phrase of its
// segmented tokens, so "固态电池 宁德" finds texts containing both strings
// and nothing in the text is read as FTS5 syntax. Text with nothing
// searchable (only punctuation) is an invalid parameter.
func FTSQuery(q string) (string, error) {
	phrases, err := ftsPhrases(q)
	if err != nil {
		return "", err
	}
	return ftsMatch(phrases), nil
}

// ftsPhrases are a search's terms, each segmented as the index is.
func ftsPhrases(q string) ([]string, error) {
	var phrases []string
	for _, term := range strings.Fields(q) {
		if seg := ftsSegment(term); seg != "" {
			phrases = append(phrases, seg)
		}
	}
	if len(phrases) == 0 {
		return nil, market.Errorf(market.KindInvalid, "q %q has no letters, digits or characters to search for", q)
	}
	if len(phrases) > 16 {
		return nil, market.Errorf(market.KindInvalid, "q has %d terms; at most 16", len(phrases))
	}
	return phrases, nil
}

// ftsMatch is FTS5's query of the phrases, all required.
func ftsMatch(phrases []string) string {
	quoted := make([]string, len(phrases))
	for i, p := range phrases {
		quoted[i] = `"` + strings.ReplaceAll(p, `"`, `""`) + `"`
	}
	return strings.Join(quoted, " AND ")
}
