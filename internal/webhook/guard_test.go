package webhook_test

import (
	"context"
	"errors"
	"net/netip"
	"net/url"
	"strings"
	"testing"
	"time"

	"mdqs/internal/market"
	"mdqs/internal/webhook"
	"mdqs/internal/webhook/webhooktest"
)

func TestPrivateAddresses(t *testing.T) {
	tests := []struct {
		addr    string
		private bool
	}{
		{"127.0.0.1", true},
		{"127.8.9.10", true},
		{"::1", true},
		{"10.1.2.3", true},
		{"172.16.0.1", true},
		{"172.31.255.255", true},
		{"172.32.0.1", false},
		{"192.168.1.10", true},
		{"100.64.0.1", true}, // CGNAT
		{"100.127.255.254", true},
		{"100.128.0.1", false},
		{"169.254.169.254", true}, // cloud metadata
		{"fe80::1", true},
		{"fc00::1", true},
		{"fd12:3456::1", true},
		{"0.0.0.0", true},
		{"::", true},
		{"224.0.0.1", true},
		{"ff02::1", true},
		{"255.255.255.255", true},
		{"::ffff:127.0.0.1", true}, // IPv4-mapped loopback
		{"::ffff:192.168.0.1", true},
		{"2002:c0a8:0101::1", true}, // 6to4 of 192.168.1.1
		{"203.119.128.1", false},    // a public address
		{"8.8.8.8", false},
		{"2400:3200::1", false},
		{"106.11.249.99", false},
	}
	for _, tt := range tests {
		if got := webhook.Private(netip.MustParseAddr(tt.addr)); got != tt.private {
			t.Errorf("Private(%s) = %v, want %v", tt.addr, got, tt.private)
		}
	}
}

// The guard is in the dialer: a receiver on this machine is refused,
// whether named by its address or by a name that resolves to it, unless
// alerts.webhook_allow_private; the refusal names the key and is final.
func TestDialerRefusesPrivateAddresses(t *testing.T) {
	r := webhooktest.NewReceiver(t, "generic", "s", clock)
	u, _ := url.Parse(r.URL())
	byName := "http://localhost:" + u.Port() + u.Path
	for _, target := range []string{r.URL(), byName} {
		got := webhook.NewSender(false, 2*time.Second, clock).Send(context.Background(), webhook.Target{URL: target, Format: "generic", Secret: "s"}, sample())
		if got.OK || !got.Permanent || !strings.Contains(got.Message, webhook.AllowKey) || got.HTTPStatus != 0 {
			t.Errorf("%s with allow_private = false: %+v; want refused naming %s", target, got, webhook.AllowKey)
		}
	}
	if n := len(r.Received()); n != 0 {
		t.Fatalf("the receiver got %d requests through the guard", n)
	}
	got := webhook.NewSender(true, 2*time.Second, clock).Send(context.Background(), webhook.Target{URL: byName, Format: "generic", Secret: "s"}, sample())
	if !got.OK {
		t.Errorf("with allow_private = true: %+v", got)
	}
}

// A name resolved when the alert is created may resolve elsewhere when
// it is sent (DNS rebinding): the check at the dial catches it whatever
// the create-time check saw.
func TestValidate(t *testing.T) {
	public := func(context.Context, string, string) ([]netip.Addr, error) {
		return []netip.Addr{netip.MustParseAddr("203.119.128.1")}, nil
	}
	lan := func(context.Context, string, string) ([]netip.Addr, error) {
		return []netip.Addr{netip.MustParseAddr("203.119.128.1"), netip.MustParseAddr("192.168.1.5")}, nil
	}
	offline := func(context.Context, string, string) ([]netip.Addr, error) { return nil, errors.New("no network") }
	ding := "https://oapi.dingtalk.com/robot/send?access_token=abc"
	tests := []struct {
		name    string
		target  webhook.Target
		allow   bool
		resolve webhook.Resolver
		want    string // a part of the 400's message; "": valid
	}{
		{"dingtalk signed", webhook.Target{URL: ding, Format: "dingtalk", Secret: "SECabc"}, false, public, ""},
		{"dingtalk with keywords instead", webhook.Target{URL: ding, Format: "dingtalk"}, false, public, ""},
		{"dingtalk without its token", webhook.Target{URL: "https://oapi.dingtalk.com/robot/send", Format: "dingtalk"}, false, public, "access_token"},
		{"wecom", webhook.Target{URL: "https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=k", Format: "wecom"}, false, public, ""},
		{"wecom with a secret", webhook.Target{URL: "https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=k", Format: "wecom", Secret: "x"}, false, public, "takes no secret"},
		{"wecom without its key", webhook.Target{URL: "https://qyapi.weixin.qq.com/cgi-bin/webhook/send", Format: "wecom"}, false, public, "key="},
		{"feishu", webhook.Target{URL: "https://open.feishu.cn/open-apis/bot/v2/hook/x", Format: "feishu", Secret: "s"}, false, public, ""},
		{"generic unsigned", webhook.Target{URL: "https://example.com/h", Format: "generic"}, false, public, "give a secret"},
		{"unknown format", webhook.Target{URL: ding, Format: "slack"}, false, public, "want one of generic, dingtalk, wecom, feishu"},
		{"no format", webhook.Target{URL: ding}, false, public, "webhook.format"},
		{"ftp", webhook.Target{URL: "ftp://example.com/x", Format: "generic", Secret: "s"}, false, public, "only http and https"},
		{"file", webhook.Target{URL: "file:///etc/passwd", Format: "generic", Secret: "s"}, false, public, "absolute URL"},
		{"not a URL", webhook.Target{URL: "oapi.dingtalk.com/robot", Format: "generic", Secret: "s"}, false, public, "absolute URL"},
		{"loopback literal", webhook.Target{URL: "http://127.0.0.1:8080/h", Format: "generic", Secret: "s"}, false, public, "alerts.webhook_allow_private = true"},
		{"metadata", webhook.Target{URL: "http://169.254.169.254/latest", Format: "generic", Secret: "s"}, false, public, "alerts.webhook_allow_private"},
		{"ipv6 loopback", webhook.Target{URL: "http://[::1]:9/h", Format: "generic", Secret: "s"}, false, public, "alerts.webhook_allow_private"},
		{"localhost", webhook.Target{URL: "http://localhost:9/h", Format: "generic", Secret: "s"}, false, offline, "alerts.webhook_allow_private"},
		{"a name in the LAN", webhook.Target{URL: "http://nas.example.com/h", Format: "generic", Secret: "s"}, false, lan, "resolves to 192.168.1.5"},
		{"a name offline", webhook.Target{URL: "http://nas.example.com/h", Format: "generic", Secret: "s"}, false, offline, ""},
		{"allowed private", webhook.Target{URL: "http://192.168.1.5/h", Format: "generic", Secret: "s"}, true, lan, ""},
		{"a secret on two lines", webhook.Target{URL: ding, Format: "dingtalk", Secret: "a\nb"}, false, public, "one line"},
	}
	for _, tt := range tests {
		err := webhook.Validate(context.Background(), tt.target, tt.allow, tt.resolve)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s: Validate = %v, want valid", tt.name, err)
		case tt.want != "" && (market.KindOf(err) != market.KindInvalid || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%s: Validate = %v, want invalid saying %q", tt.name, err, tt.want)
		}
	}
}

func TestRedact(t *testing.T) {
	tests := []struct{ in, want string }{
		{"https://oapi.dingtalk.com/robot/send?access_token=0123456789abcdef", "https://oapi.dingtalk.com/robot/send?access_token=***"},
		{"https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=693a91f6-7xxx", "https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=***"},
		{"https://open.feishu.cn/open-apis/bot/v2/hook/2f4c0c2e-7a4b-4b8e-9a51", "https://open.feishu.cn/open-apis/bot/v2/hook/***"},
		{"https://user:pass@example.com/h?a=1&b=2#frag", "https://***@example.com/h?a=***&b=***"},
		{"not a url", "(not a URL)"},
	}
	for _, tt := range tests {
		if got := webhook.Redact(tt.in); got != tt.want {
			t.Errorf("Redact(%s) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

// Redact never lets a query value or the user info through, whatever the URL.
func FuzzRedact(f *testing.F) {
	f.Add("https://oapi.dingtalk.com/robot/send?access_token=abc&x=y")
	f.Add("http://u:p@h/a%2Fb?k=%E4%BD%A0")
	f.Fuzz(func(t *testing.T, raw string) {
		out := webhook.Redact(raw)
		if out == "(not a URL)" {
			return
		}
		u, err := url.Parse(out)
		if err != nil {
			t.Fatalf("Redact(%q) = %q, which does not parse: %v", raw, out, err)
		}
		if _, hasPass := u.User.Password(); u.User != nil && (u.User.Username() != "***" || hasPass) {
			t.Fatalf("Redact(%q) = %q keeps the user info", raw, out)
		}
		for k, vs := range u.Query() {
			for _, v := range vs {
				if v != "***" {
					t.Fatalf("Redact(%q) = %q keeps %s=%s", raw, out, k, v)
				}
			}
		}
	})
}

// Interpret reads any answer without panicking, and success needs a 2xx.
func FuzzInterpret(f *testing.F) {
	f.Add("dingtalk", 200, []byte(`{"errcode":0,"errmsg":"ok"}`))
	f.Add("feishu", 200, []byte(`{"code":19021,"msg":"sign match fail"}`))
	f.Add("generic", 302, []byte(``))
	f.Fuzz(func(t *testing.T, format string, status int, body []byte) {
		r := webhook.Interpret(format, status, body)
		if r.OK && (status < 200 || status > 299) {
			t.Fatalf("Interpret(%q, %d, %q) = OK", format, status, body)
		}
		if r.OK && format != "generic" && (r.VendorCode == nil || *r.VendorCode != 0) {
			t.Fatalf("Interpret(%q, %d, %q) = OK without code 0", format, status, body)
		}
	})
}

// Validate takes any input without panicking, and what it accepts with
// allow_private off is an http(s) URL whose host, when an address, is public.
func FuzzValidate(f *testing.F) {
	f.Add("http://127.0.0.1:9/h", "generic", "s")
	f.Add("https://[::ffff:10.0.0.1]/robot/send?access_token=x", "dingtalk", "")
	f.Add("https://0x7f.1/h", "generic", "s")
	f.Fuzz(func(t *testing.T, raw, format, secret string) {
		err := webhook.Validate(context.Background(), webhook.Target{URL: raw, Format: format, Secret: secret}, false, nil)
		if err != nil {
			if market.KindOf(err) != market.KindInvalid {
				t.Fatalf("Validate(%q) = %v, not a 400", raw, err)
			}
			return
		}
		u, perr := url.Parse(raw)
		if perr != nil || (u.Scheme != "http" && u.Scheme != "https") {
			t.Fatalf("Validate accepted %q", raw)
		}
		if a, aerr := netip.ParseAddr(strings.Trim(u.Hostname(), "[]")); aerr == nil && webhook.Private(a) {
			t.Fatalf("Validate accepted the private %q", raw)
		}
	})
}
