package webhook_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"mdqs/internal/market"
	"mdqs/internal/webhook"
	"mdqs/internal/webhook/webhooktest"
)

var now = time.Date(2026, 11, 24, 10, 0, 1, 0, market.Shanghai())

func clock() time.Time { return now }

func sample() webhook.Message {
	return webhook.Message{Delivery: "d42", AlertID: "a1", AlertName: "放量突破", Expression: "pct > 5 && turnover > 3",
		Link: "https://mdqs.example.com/",
		Events: []webhook.Event{
			{ID: 7, AlertID: "a1", AlertName: "放量突破", Code: "600519.SH", Name: "贵州茅台", FiredAt: "2026-11-24 10:00:00", Fields: json.RawMessage(`{"turnover":3.2,"pct":6.1}`)},
			{ID: 8, AlertID: "a1", AlertName: "放量突破", Code: "300750.SZ", Name: "宁德时代", FiredAt: "2026-11-24 10:00:00", Fields: json.RawMessage(`{"turnover":4,"pct":5.5}`)},
		}}
}

// Each vendor's robot takes a message signed with its secret and refuses
// one signed with another, and the refusal's code and message come back
// (a 200 with a nonzero code is a failure, not a success).
func TestEachFormatIsVerifiedAsItsVendorDocuments(t *testing.T) {
	tests := []struct {
		format, secret, wrong string
		wantCode              int // the vendor's code of the wrong one; -1: none (generic)
		wantStatus            int // the HTTP status of the wrong one
	}{
		{"dingtalk", "SEC3b1f2e0c9d8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a3b2c1", "SECwrong", 310000, 200},
		{"feishu", "qTbQ0VrXxgPzbnA7kFvrwb", "wrong", 19021, 200},
		{"wecom", "693a91f6-7xxx-4bc4-97a0-0ec2sifa5aaa", "", 93000, 200},
		{"generic", "a-shared-secret-of-the-receiver", "another", -1, 401},
	}
	s := webhook.NewSender(true, 5*time.Second, clock)
	for _, tt := range tests {
		t.Run(tt.format, func(t *testing.T) {
			r := webhooktest.NewReceiver(t, tt.format, tt.secret, clock)
			secret := tt.secret
			if tt.format == "wecom" {
				secret = ""
			}
			got := s.Send(context.Background(), webhook.Target{URL: r.URL(), Format: tt.format, Secret: secret}, sample())
			if !got.OK || got.HTTPStatus != 200 || got.Permanent {
				t.Fatalf("Send with the right secret = %+v, want OK", got)
			}
			if tt.format != "generic" && (got.VendorCode == nil || *got.VendorCode != 0) {
				t.Errorf("vendor code of a success = %v, want 0", got.VendorCode)
			}
			// The wrong secret (WeCom: a URL with another key).
			url := r.URL()
			if tt.format == "wecom" {
				url = strings.Replace(url, "key="+tt.secret, "key=someone-elses", 1)
			}
			bad := s.Send(context.Background(), webhook.Target{URL: url, Format: tt.format, Secret: tt.wrong}, sample())
			if bad.OK || bad.HTTPStatus != tt.wantStatus {
				t.Fatalf("Send with a wrong secret = %+v, want a failure with HTTP %d", bad, tt.wantStatus)
			}
			if tt.wantCode >= 0 && (bad.VendorCode == nil || *bad.VendorCode != tt.wantCode || bad.Message == "") {
				t.Errorf("a refusal = code %v %q, want code %d and the vendor's message", bad.VendorCode, bad.Message, tt.wantCode)
			}
			if len(r.Received()) != 2 {
				t.Errorf("the robot got %d requests, want 2", len(r.Received()))
			}
		})
	}
}

// The message a chat shows: short, Chinese, the alert's name, each code
// with its name and matched values, the condition and the link.
func TestMessageText(t *testing.T) {
	m := sample()
	text := m.Text()
	for _, want := range []string{"【mdqs 预警】放量突破", "2 只股票触发，2026-11-24 10:00:00", "600519.SH 贵州茅台  pct=6.1 turnover=3.2",
		"300750.SZ 宁德时代  pct=5.5 turnover=4", "条件：pct > 5 && turnover > 3", "查看：https://mdqs.example.com/"} {
		if !strings.Contains(text, want) {
			t.Errorf("Text() lacks %q:\n%s", want, text)
		}
	}
	m.Link = ""
	if strings.Contains(m.Text(), "查看") {
		t.Errorf("a server without a public URL links anyway:\n%s", m.Text())
	}
	// Thirty codes at once: one message naming twenty and counting the rest,
	// within WeCom's 2048 bytes.
	for i := 0; len(m.Events) < 30; i++ {
		m.Events = append(m.Events, webhook.Event{Code: "000001.SZ", Name: "平安银行", Fields: json.RawMessage(`{"pct":2}`)})
	}
	text = m.Text()
	if strings.Count(text, "\n000001.SZ") != 18 || !strings.Contains(text, "……另有 10 只") || len(text) > 2048 {
		t.Errorf("thirty codes:\n%s", text)
	}
	m.Test = true
	if !strings.HasPrefix(m.Text(), "【mdqs 测试】") {
		t.Errorf("a test message: %s", m.Text())
	}
}

// The generic body carries the events as /v1/api/alerts/events shows
// them, and the delivery id in the body and X-Mdqs-Delivery.
func TestGenericBody(t *testing.T) {
	req, err := webhook.Request(context.Background(), webhook.Target{URL: "https://example.com/hook", Format: "generic", Secret: "s"}, sample(), now)
	if err != nil {
		t.Fatal(err)
	}
	var body struct {
		Delivery string            `json:"delivery"`
		Alert    map[string]string `json:"alert"`
		Events   []map[string]any  `json:"events"`
		Text     string            `json:"text"`
		Link     string            `json:"link"`
		Test     bool              `json:"test"`
	}
	if err := json.NewDecoder(req.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	if body.Delivery != "d42" || req.Header.Get("X-Mdqs-Delivery") != "d42" || body.Alert["id"] != "a1" || len(body.Events) != 2 ||
		body.Events[0]["code"] != "600519.SH" || body.Events[0]["fired_at"] != "2026-11-24 10:00:00" || body.Events[1]["id"] != 8.0 ||
		!strings.HasPrefix(body.Text, "【mdqs 预警】") || body.Link != "https://mdqs.example.com/" || body.Test {
		t.Errorf("generic body: %+v, headers %v", body, req.Header)
	}
	if req.Header.Get("X-Mdqs-Timestamp") != "1795485601" || !strings.HasPrefix(req.Header.Get("X-Mdqs-Signature"), "sha256=") {
		t.Errorf("headers: %v", req.Header)
	}
}

// The answers of each kind of receiver, read.
func TestInterpret(t *testing.T) {
	tests := []struct {
		format    string
		status    int
		body      string
		ok        bool
		code      int // -1: none
		message   string
		permanent bool
	}{
		{"dingtalk", 200, `{"errcode":0,"errmsg":"ok"}`, true, 0, "ok", false},
		{"dingtalk", 200, `{"errcode":410100,"errmsg":"send too fast, exceed 20 times per minute"}`, false, 410100, "send too fast, exceed 20 times per minute", false},
		{"dingtalk", 200, `{"errcode":310000,"errmsg":"keywords not in content"}`, false, 310000, "keywords not in content", false},
		{"wecom", 200, `{"errcode":45009,"errmsg":"api freq out of limit"}`, false, 45009, "api freq out of limit", false},
		{"feishu", 200, `{"code":0,"data":{},"msg":"success"}`, true, 0, "success", false},
		{"feishu", 200, `{"StatusCode":0,"StatusMessage":"success"}`, true, 0, "success", false},
		{"feishu", 200, `{"code":11232,"msg":"frequency limited psm"}`, false, 11232, "frequency limited psm", false},
		{"feishu", 200, `<html>gateway</html>`, false, -1, "the answer is not the robot's JSON: <html>gateway</html>", false},
		{"dingtalk", 200, `{}`, false, -1, "the answer carries no errcode or code: {}", false},
		{"dingtalk", 502, `bad gateway`, false, -1, "HTTP 502 Bad Gateway: bad gateway", false},
		{"generic", 204, ``, true, -1, "No Content", false},
		{"generic", 400, `no`, false, -1, "HTTP 400 Bad Request: no", true},
		{"generic", 429, ``, false, -1, "HTTP 429 Too Many Requests", false},
		{"generic", 503, ``, false, -1, "HTTP 503 Service Unavailable", false},
		{"generic", 302, ``, false, -1, "HTTP 302: redirects are not followed; give the final URL", true},
	}
	for _, tt := range tests {
		r := webhook.Interpret(tt.format, tt.status, []byte(tt.body))
		code := -1
		if r.VendorCode != nil {
			code = *r.VendorCode
		}
		if r.OK != tt.ok || code != tt.code || r.Message != tt.message || r.Permanent != tt.permanent || r.HTTPStatus != tt.status {
			t.Errorf("Interpret(%s, %d, %s) = ok %v code %d %q permanent %v; want %v %d %q %v", tt.format, tt.status, tt.body,
				r.OK, code, r.Message, r.Permanent, tt.ok, tt.code, tt.message, tt.permanent)
		}
	}
}

// A redirect is not followed: the receiver's answer is the 3xx.
func TestRedirectIsNotFollowed(t *testing.T) {
	var hit bool
	target := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { hit = true }))
	defer target.Close()
	redirect := httptest.NewServer(http.RedirectHandler(target.URL, http.StatusTemporaryRedirect))
	defer redirect.Close()
	r := webhook.NewSender(true, 5*time.Second, clock).Send(context.Background(), webhook.Target{URL: redirect.URL, Format: "generic", Secret: "s"}, sample())
	if r.OK || r.HTTPStatus != http.StatusTemporaryRedirect || !r.Permanent || hit {
		t.Errorf("a redirect: %+v, target hit %v", r, hit)
	}
}

// A try ends within the timeout, and the error says so without the URL
// (which holds the robot's credential).
func TestTimeoutAndNoCredentialInErrors(t *testing.T) {
	release := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { <-release }))
	defer slow.Close()
	defer close(release)
	r := webhook.NewSender(true, 200*time.Millisecond, clock).Send(context.Background(),
		webhook.Target{URL: slow.URL + "/robot/send?access_token=SECRETTOKEN", Format: "dingtalk", Secret: "SECx"}, sample())
	if r.OK || r.HTTPStatus != 0 || r.Message != "no answer within the timeout" || r.Duration > 5*time.Second {
		t.Errorf("a receiver that never answers: %+v", r)
	}
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	r = webhook.NewSender(true, time.Second, clock).Send(context.Background(),
		webhook.Target{URL: closed.URL + "/cgi-bin/webhook/send?key=SECRETKEY", Format: "wecom"}, sample())
	if r.OK || strings.Contains(r.Message, "SECRET") || r.Message == "" {
		t.Errorf("a closed port: %+v", r)
	}
}
