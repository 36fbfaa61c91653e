package webhook

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// The headers of a generic webhook.
const (
	HeaderTimestamp = "X-Mdqs-Timestamp" // Unix seconds
	HeaderSignature = "X-Mdqs-Signature" // sha256=<hex HMAC-SHA256(secret, timestamp + "." + body)>
	HeaderDelivery  = "X-Mdqs-Delivery"  // the same on every try of one delivery
)

// Result is what one try came to.
type Result struct {
	OK         bool
	HTTPStatus int  // 0: no answer
	VendorCode *int // the chat app's errcode or code
	Message    string
	Duration   time.Duration
	// Permanent says another try would fail the same way: the address is
	// refused, or the receiver refused the request itself (a 4xx other
	// than 408 and 429, a redirect).
	Permanent bool
}

// Sender sends messages through the guarded client.
type Sender struct {
	client  *http.Client
	timeout time.Duration
	now     func() time.Time
}

// maxAnswer bounds what is read of a receiver's answer.
const maxAnswer = 64 << 10

// NewSender is a sender whose every try ends within timeout; now is the
// clock the signatures' timestamps come from (the vendors refuse one an
// hour off).
func NewSender(allowPrivate bool, timeout time.Duration, now func() time.Time) *Sender {
	tr := &http.Transport{
		Proxy:                 nil, // a proxy would dial on our behalf, past the guard
		DialContext:           dialer(allowPrivate).DialContext,
		TLSHandshakeTimeout:   timeout,
		ResponseHeaderTimeout: timeout,
		MaxIdleConns:          8,
		IdleConnTimeout:       90 * time.Second,
		ForceAttemptHTTP2:     true,
	}
	return &Sender{
		client: &http.Client{Transport: tr, Timeout: timeout,
			// Not followed: a redirect's target would be a second address
			// nobody validated at create time (the dialer would still
			// guard it), and no robot's API redirects.
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }},
		timeout: timeout, now: now,
	}
}

// Send makes one try of m to t.
func (s *Sender) Send(ctx context.Context, t Target, m Message) Result {
	start := time.Now()
	req, err := Request(ctx, t, m, s.now())
	if err != nil {
		return Result{Message: err.Error(), Permanent: true}
	}
	resp, err := s.client.Do(req)
	if err != nil {
		r := Result{Message: transportError(err), Duration: time.Since(start)}
		r.Permanent = errors.Is(err, ErrPrivate)
		return r
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	r := Interpret(t.Format, resp.StatusCode, body)
	r.Duration = time.Since(start)
	return r
}

// transportError is err without the URL the client puts in front of it:
// the URL holds the robot's credential.
func transportError(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	if errors.Is(err, context.DeadlineExceeded) || strings.Contains(err.Error(), "Client.Timeout") {
		return "no answer within the timeout"
	}
	return err.Error()
}

// Request builds the signed request of m to t at now.
func Request(ctx context.Context, t Target, m Message, now time.Time) (*http.Request, error) {
	if m.SentAt == "" {
		m.SentAt = now.Format(time.DateTime)
	}
	target := t.URL
	var body []byte
	var err error
	header := http.Header{"Content-Type": {"application/json; charset=utf-8"}}
	switch t.Format {
	case Generic:
		events := m.Events
		if events == nil {
			events = []Event{}
		}
		body, err = json.Marshal(genericBody{Delivery: m.Delivery, Alert: idName{ID: m.AlertID, Name: m.AlertName}, Events: events,
			Text: m.Text(), Link: m.Link, Test: m.Test, SentAt: m.SentAt})
		ts := strconv.FormatInt(now.Unix(), 10)
		header.Set(HeaderTimestamp, ts)
		header.Set(HeaderSignature, "sha256="+GenericSignature(t.Secret, ts, body))
	case DingTalk, WeCom:
		var b textBody
		b.MsgType = "text"
		b.Text.Content = m.Text()
		body, err = json.Marshal(b)
		if t.Format == DingTalk && t.Secret != "" {
			ts := strconv.FormatInt(now.UnixMilli(), 10)
			target = withQuery(target, "timestamp", ts, "sign", dingTalkSign(t.Secret, ts))
		}
	case Feishu:
		var b feishuBody
		b.MsgType = "text"
		b.Content.Text = m.Text()
		if t.Secret != "" {
			b.Timestamp = strconv.FormatInt(now.Unix(), 10)
			b.Sign = feishuSign(t.Secret, b.Timestamp)
		}
		body, err = json.Marshal(b)
	default:
		return nil, fmt.Errorf("webhook: unknown format %q", t.Format)
	}
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("webhook: the URL %s: cannot be requested", Redact(t.URL))
	}
	req.Header = header
	req.Header.Set("User-Agent", "mdqs-webhook/1")
	if m.Delivery != "" {
		req.Header.Set(HeaderDelivery, m.Delivery)
	}
	return req, nil
}

// GenericSignature is the hex HMAC-SHA256 a generic receiver checks:
// keyed by the secret, over the timestamp header, a dot, and the raw body.
func GenericSignature(secret, timestamp string, body []byte) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(timestamp))
	mac.Write([]byte{'.'})
	mac.Write(body)
	return hex.EncodeToString(mac.Sum(nil))
}

// dingTalkSign is DingTalk's 加签: HMAC-SHA256 keyed by the secret over
// timestamp (ms) + "\n" + secret, in base64 (the query's encoding is
// withQuery's).
func dingTalkSign(secret, ts string) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(ts + "\n" + secret))
	return base64.StdEncoding.EncodeToString(mac.Sum(nil))
}

// feishuSign is Feishu's 签名校验: timestamp (s) + "\n" + secret is the
// HMAC-SHA256 *key*, over an empty message, in base64.
func feishuSign(secret, ts string) string {
	mac := hmac.New(sha256.New, []byte(ts+"\n"+secret))
	return base64.StdEncoding.EncodeToString(mac.Sum(nil))
}

// withQuery appends name=value pairs to raw's query, URL-encoded, after
// the parameters it has (access_token stays first, as DingTalk shows it).
func withQuery(raw string, kv ...string) string {
	var b strings.Builder
	b.WriteString(raw)
	sep := "&"
	if !strings.Contains(raw, "?") {
		sep = "?"
	}
	for i := 0; i+1 < len(kv); i += 2 {
		b.WriteString(sep + url.QueryEscape(kv[i]) + "=" + url.QueryEscape(kv[i+1]))
		sep = "&"
	}
	return b.String()
}

// vendorAnswer is every vendor's answer: DingTalk and WeCom say errcode
// and errmsg; Feishu says code and msg (and, from its older hooks,
// StatusCode and StatusMessage).
type vendorAnswer struct {
	ErrCode       *int   `json:"errcode"`
	ErrMsg        string `json:"errmsg"`
	Code          *int   `json:"code"`
	Msg           string `json:"msg"`
	StatusCode    *int   `json:"StatusCode"`
	StatusMessage string `json:"StatusMessage"`
}

// Interpret reads a receiver's answer. A generic receiver's 2xx is
// success; a chat app answers 200 even when it refused the message (a
// wrong signature, a rate limit, a keyword missing), so only its code 0
// is success, and otherwise its message is the reason.
func Interpret(format string, status int, body []byte) Result {
	r := Result{HTTPStatus: status}
	snippet := strings.TrimSpace(truncate(strings.ToValidUTF8(string(body), "?"), 200))
	switch {
	case status >= 300 && status < 400:
		r.Message = fmt.Sprintf("HTTP %d: redirects are not followed; give the final URL", status)
		r.Permanent = true
		return r
	case status < 200 || status > 299:
		r.Message = fmt.Sprintf("HTTP %d %s", status, http.StatusText(status))
		if snippet != "" {
			r.Message += ": " + snippet
		}
		r.Permanent = format == Generic && status >= 400 && status < 500 && status != http.StatusRequestTimeout && status != http.StatusTooManyRequests
		return r
	}
	if format == Generic {
		r.OK, r.Message = true, snippet
		if r.Message == "" {
			r.Message = http.StatusText(status)
		}
		return r
	}
	var a vendorAnswer
	if err := json.Unmarshal(body, &a); err != nil {
		r.Message = "the answer is not the robot's JSON: " + snippet
		return r
	}
	switch {
	case a.ErrCode != nil:
		r.VendorCode, r.Message = a.ErrCode, a.ErrMsg
	case a.Code != nil:
		r.VendorCode, r.Message = a.Code, a.Msg
	case a.StatusCode != nil:
		r.VendorCode, r.Message = a.StatusCode, a.StatusMessage
	default:
		r.Message = "the answer carries no errcode or code: " + snippet
		return r
	}
	r.OK = *r.VendorCode == 0
	return r
}
