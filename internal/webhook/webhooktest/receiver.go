// Package webhooktest runs local robots of each chat app and a generic
// receiver, which check every request as the vendors document it.
package webhooktest

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"
)

// The receivers below check each request exactly as its vendor's own
// documentation says a robot checks it, written from those pages, not from
// the sender:
//
//   - DingTalk custom robot, 加签 (open.dingtalk.com/document/robots/customize-robot-security-settings):
//     timestamp in ms and sign in the webhook's query; sign is
//     urlEncode(base64(HmacSHA256(key = secret, data = timestamp + "\n" + secret)));
//     a timestamp more than an hour from the robot's clock is refused.
//     Answer {"errcode":0,"errmsg":"ok"}, a bad signature
//     {"errcode":310000,"errmsg":"sign not match, ..."}.
//   - Feishu custom bot, 签名校验 (open.feishu.cn/document/client-docs/bot-v3/add-custom-bot):
//     "timestamp" (s) and "sign" in the JSON body; sign is
//     base64(HmacSHA256(key = timestamp + "\n" + secret, data = "")); answer
//     {"code":0,"data":{},"msg":"success"}, a bad one
//     {"code":19021,"msg":"sign match fail or timestamp is not within one hour from current time"}.
//   - WeCom group robot (developer.work.weixin.qq.com/document/path/91770):
//     key=... in the URL, no signature; answer {"errcode":0,"errmsg":"ok"},
//     a wrong key {"errcode":93000,"errmsg":"invalid webhook url"}.
//   - generic (docs/screens-and-alerts.md#webhooks): X-Mdqs-Signature is
//     "sha256=" + hex(HMAC-SHA256(secret, X-Mdqs-Timestamp + "." + raw body)).

// Received is one request a receiver took.
type Received struct {
	Query  map[string][]string
	Header http.Header
	Body   []byte
}

// Receiver is a local robot of one vendor: it verifies, answers as the
// vendor does, and keeps what it got. SetFail makes it answer an HTTP
// status without looking (a robot that is down).
type Receiver struct {
	Srv    *httptest.Server
	format string
	secret string // the robot's secret (WeCom: its key)
	now    func() time.Time

	mu   sync.Mutex
	got  []Received
	fail int
}

// NewReceiver starts a robot of format whose secret (WeCom: key) is
// secret and whose clock reads now (signatures an hour off fail).
func NewReceiver(t testing.TB, format, secret string, now func() time.Time) *Receiver {
	r := &Receiver{format: format, secret: secret, now: now}
	r.Srv = httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(r.Srv.Close)
	return r
}

// URL is the robot's webhook address as its vendor shows it.
func (r *Receiver) URL() string {
	switch r.format {
	case "dingtalk":
		return r.Srv.URL + "/robot/send?access_token=0123456789abcdef0123456789abcdef"
	case "wecom":
		return r.Srv.URL + "/cgi-bin/webhook/send?key=" + r.secret
	case "feishu":
		return r.Srv.URL + "/open-apis/bot/v2/hook/2f4c0c2e-7a4b-4b8e-9a51-0d7c6f1e2a3b"
	}
	return r.Srv.URL + "/mdqs-hook"
}

// SetFail makes every answer HTTP status (0: answer normally again).
func (r *Receiver) SetFail(status int) {
	r.mu.Lock()
	r.fail = status
	r.mu.Unlock()
}

// Received is every request so far, in order.
func (r *Receiver) Received() []Received {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Received(nil), r.got...)
}

func (r *Receiver) serve(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	r.mu.Lock()
	fail := r.fail
	r.got = append(r.got, Received{Query: req.URL.Query(), Header: req.Header.Clone(), Body: body})
	r.mu.Unlock()
	if fail != 0 {
		http.Error(w, "down", fail)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	switch r.format {
	case "dingtalk":
		q := req.URL.Query()
		ms, err := strconv.ParseInt(q.Get("timestamp"), 10, 64)
		mac := hmac.New(sha256.New, []byte(r.secret))
		mac.Write([]byte(q.Get("timestamp") + "\n" + r.secret))
		want := base64.StdEncoding.EncodeToString(mac.Sum(nil))
		if err != nil || q.Get("sign") != want || abs(time.UnixMilli(ms).Sub(r.now())) > time.Hour {
			io.WriteString(w, `{"errcode":310000,"errmsg":"sign not match, more: [https://ding-doc.dingtalk.com/doc#/serverapi2/qf2nxq]"}`)
			return
		}
		var m struct {
			MsgType string `json:"msgtype"`
			Text    struct {
				Content string `json:"content"`
			} `json:"text"`
		}
		if json.Unmarshal(body, &m) != nil || m.MsgType != "text" || m.Text.Content == "" {
			io.WriteString(w, `{"errcode":40035,"errmsg":"缺少参数 json"}`)
			return
		}
		io.WriteString(w, `{"errcode":0,"errmsg":"ok"}`)
	case "feishu":
		var m struct {
			Timestamp string `json:"timestamp"`
			Sign      string `json:"sign"`
			MsgType   string `json:"msg_type"`
			Content   struct {
				Text string `json:"text"`
			} `json:"content"`
		}
		json.Unmarshal(body, &m)
		sec, err := strconv.ParseInt(m.Timestamp, 10, 64)
		mac := hmac.New(sha256.New, []byte(m.Timestamp+"\n"+r.secret))
		mac.Write([]byte(""))
		want := base64.StdEncoding.EncodeToString(mac.Sum(nil))
		if err != nil || m.Sign != want || abs(time.Unix(sec, 0).Sub(r.now())) > time.Hour {
			io.WriteString(w, `{"code":19021,"data":{},"msg":"sign match fail or timestamp is not within one hour from current time"}`)
			return
		}
		if m.MsgType != "text" || m.Content.Text == "" {
			io.WriteString(w, `{"code":9499,"data":{},"msg":"Bad Request"}`)
			return
		}
		io.WriteString(w, `{"code":0,"data":{},"msg":"success"}`)
	case "wecom":
		if req.URL.Query().Get("key") != r.secret {
			io.WriteString(w, `{"errcode":93000,"errmsg":"invalid webhook url, hint: [1700000000_1_abc]"}`)
			return
		}
		io.WriteString(w, `{"errcode":0,"errmsg":"ok"}`)
	case "generic":
		ts := req.Header.Get("X-Mdqs-Timestamp")
		mac := hmac.New(sha256.New, []byte(r.secret))
		mac.Write([]byte(ts + "." + string(body)))
		want := "sha256=" + hex.EncodeToString(mac.Sum(nil))
		if !hmac.Equal([]byte(req.Header.Get("X-Mdqs-Signature")), []byte(want)) {
			http.Error(w, `{"error":"bad signature"}`, http.StatusUnauthorized)
			return
		}
		io.WriteString(w, `{"ok":true}`)
	}
}

func abs(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}
