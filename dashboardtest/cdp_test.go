package dashboardtest

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"mdqs/loadgen"
)

// A minimal Chrome DevTools Protocol client over --remote-debugging-pipe:
// Chromium reads commands from its file descriptor 3 and writes answers and
// events to descriptor 4, each message one JSON text ended by a NUL byte.
// That is the transport Puppeteer and Playwright use too; it needs no
// websocket (the standard library has no client) and no TCP port, and the
// browser goes away with its pipes.

// findChromium answers the browser to drive, or "" when none is installed.
// MDQS_CHROMIUM names one explicitly.
func findChromium() string {
	if p := os.Getenv("MDQS_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if _, err := os.Stat("/usr/bin/chromium"); err == nil {
		return "/usr/bin/chromium"
	}
	return ""
}

// cdpMessage is every message on the pipe: a command (id, method, params,
// sessionId), its answer (id, result or error) or an event (method, params).
type cdpMessage struct {
	ID        int64           `json:"id,omitempty"`
	Method    string          `json:"method,omitempty"`
	SessionID string          `json:"sessionId,omitempty"`
	Params    json.RawMessage `json:"params,omitempty"`
	Result    json.RawMessage `json:"result,omitempty"`
	Error     *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
		Data    string `json:"data"`
	} `json:"error,omitempty"`
}

type browser struct {
	cmd    *exec.Cmd
	w      *os.File // the browser's fd 3
	stderr *lockedBuffer

	mu      sync.Mutex
	nextID  int64
	pending map[int64]chan cdpMessage
	events  []cdpMessage
	closed  chan struct{} // the read loop has ended
	readErr error
}

// startBrowser starts headless Chromium with a throw-away profile. It
// cannot reach anything but loopback: every host name resolves to nothing.
func startBrowser(t *testing.T, bin string) *browser {
	t.Helper()
	profile := t.TempDir()
	args := []string{
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir=" + profile,
		"--remote-debugging-pipe",
		"--no-default-browser-check", "--disable-extensions", "--disable-default-apps",
		"--hide-scrollbars", "--mute-audio", "--force-device-scale-factor=1",
		"--window-size=1440,1000",
		"--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
		"about:blank",
	}
	cmdR, cmdW, err := os.Pipe() // we write commands; the browser reads fd 3
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe() // the browser writes fd 4; we read
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, args...)
	cmd.ExtraFiles = []*os.File{cmdR, outW}
	b := &browser{cmd: cmd, w: cmdW, stderr: &lockedBuffer{}, pending: map[int64]chan cdpMessage{}, closed: make(chan struct{})}
	cmd.Stdout = b.stderr
	cmd.Stderr = b.stderr
	cmd.Env = append(os.Environ(), "HOME="+profile) // keep the crash pad and caches out of the real home
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", bin, err)
	}
	cmdR.Close()
	outW.Close()
	go b.readLoop(outR)
	t.Cleanup(func() { b.close(t) })
	return b
}

func (b *browser) readLoop(r io.ReadCloser) {
	defer r.Close()
	br := bufio.NewReaderSize(r, 1<<20)
	var err error
	for {
		var raw []byte
		raw, err = br.ReadBytes(0)
		if err != nil {
			break
		}
		var m cdpMessage
		if err = json.Unmarshal(raw[:len(raw)-1], &m); err != nil {
			err = fmt.Errorf("undecodable DevTools message: %w", err)
			break
		}
		b.mu.Lock()
		if m.ID != 0 {
			if ch := b.pending[m.ID]; ch != nil {
				delete(b.pending, m.ID)
				ch <- m
			}
		} else {
			b.events = append(b.events, m)
		}
		b.mu.Unlock()
	}
	b.mu.Lock()
	b.readErr = err
	b.mu.Unlock()
	close(b.closed)
}

// call sends one command (to the browser, or to a page's session) and
// decodes its result into out (when not nil).
func (b *browser) call(ctx context.Context, session, method string, params, out any) error {
	b.mu.Lock()
	b.nextID++
	id := b.nextID
	ch := make(chan cdpMessage, 1)
	b.pending[id] = ch
	b.mu.Unlock()
	msg := cdpMessage{ID: id, Method: method, SessionID: session}
	if params != nil {
		p, err := json.Marshal(params)
		if err != nil {
			return err
		}
		msg.Params = p
	}
	raw, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	if _, err := b.w.Write(append(raw, 0)); err != nil {
		return fmt.Errorf("%s: write to the browser: %w", method, err)
	}
	select {
	case m := <-ch:
		if m.Error != nil {
			return fmt.Errorf("%s: %s %s", method, m.Error.Message, m.Error.Data)
		}
		if out != nil {
			return json.Unmarshal(m.Result, out)
		}
		return nil
	case <-b.closed:
		return fmt.Errorf("%s: the browser went away: %v\n%s", method, b.readErr, b.stderr)
	case <-ctx.Done():
		b.mu.Lock()
		delete(b.pending, id)
		b.mu.Unlock()
		return fmt.Errorf("%s: %w", method, ctx.Err())
	}
}

// eventsOf answers the events received so far with one of the methods.
func (b *browser) eventsOf(methods ...string) []cdpMessage {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []cdpMessage
	for _, m := range b.events {
		for _, want := range methods {
			if m.Method == want {
				out = append(out, m)
			}
		}
	}
	return out
}

func (b *browser) close(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = b.call(ctx, "", "Browser.close", nil, nil)
	b.w.Close()
	done := make(chan error, 1)
	go func() { done <- b.cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Logf("chromium did not exit after Browser.close; killing pid %d", b.cmd.Process.Pid)
		b.cmd.Process.Kill()
		<-done
	}
}

// page is one tab, attached in flat mode (commands carry its session id).
type page struct {
	b       *browser
	session string
}

func (b *browser) newPage(ctx context.Context, width, height int) (*page, error) {
	var created struct {
		TargetID string `json:"targetId"`
	}
	if err := b.call(ctx, "", "Target.createTarget", map[string]any{"url": "about:blank"}, &created); err != nil {
		return nil, err
	}
	var attached struct {
		SessionID string `json:"sessionId"`
	}
	if err := b.call(ctx, "", "Target.attachToTarget", map[string]any{"targetId": created.TargetID, "flatten": true}, &attached); err != nil {
		return nil, err
	}
	p := &page{b: b, session: attached.SessionID}
	for _, m := range []string{"Page.enable", "Runtime.enable", "Log.enable"} {
		if err := p.call(ctx, m, nil, nil); err != nil {
			return nil, err
		}
	}
	err := p.call(ctx, "Emulation.setDeviceMetricsOverride", map[string]any{
		"width": width, "height": height, "deviceScaleFactor": 1, "mobile": false,
	}, nil)
	return p, err
}

func (p *page) call(ctx context.Context, method string, params, out any) error {
	return p.b.call(ctx, p.session, method, params, out)
}

func (p *page) navigate(ctx context.Context, url string) error {
	var nav struct {
		ErrorText string `json:"errorText"`
	}
	if err := p.call(ctx, "Page.navigate", map[string]any{"url": url}, &nav); err != nil {
		return err
	}
	if nav.ErrorText != "" {
		return fmt.Errorf("navigate %s: %s", url, nav.ErrorText)
	}
	return nil
}

// eval evaluates a JavaScript expression in the page (awaiting it when it
// is a promise) and decodes its JSON value into out.
func (p *page) eval(ctx context.Context, expr string, out any) error {
	var res struct {
		Result struct {
			Type  string          `json:"type"`
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		ExceptionDetails *struct {
			Text      string `json:"text"`
			Exception *struct {
				Description string `json:"description"`
			} `json:"exception"`
		} `json:"exceptionDetails"`
	}
	err := p.call(ctx, "Runtime.evaluate", map[string]any{
		"expression": expr, "returnByValue": true, "awaitPromise": true,
	}, &res)
	if err != nil {
		return err
	}
	if e := res.ExceptionDetails; e != nil {
		msg := e.Text
		if e.Exception != nil {
			msg += " " + e.Exception.Description
		}
		return errors.New("javascript: " + msg)
	}
	if out == nil {
		return nil
	}
	if len(res.Result.Value) == 0 {
		return fmt.Errorf("javascript: %q evaluated to %s, not a value", expr, res.Result.Type)
	}
	return json.Unmarshal(res.Result.Value, out)
}

// typeText types into the focused element as a keyboard would.
func (p *page) typeText(ctx context.Context, text string) error {
	return p.call(ctx, "Input.insertText", map[string]any{"text": text}, nil)
}

// screenshot writes a PNG of the whole page to path.
func (p *page) screenshot(ctx context.Context, path string) ([]byte, error) {
	var shot struct {
		Data []byte `json:"data"` // base64 in JSON, decoded by encoding/json
	}
	if err := p.call(ctx, "Page.captureScreenshot", map[string]any{"format": "png", "captureBeyondViewport": true}, &shot); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	return shot.Data, os.WriteFile(path, shot.Data, 0o644)
}

// lockedBuffer collects a child process's output for failure messages,
// which show its last 8,000 bytes.
type lockedBuffer struct{ loadgen.SyncBuffer }

func (l *lockedBuffer) String() string {
	s := l.SyncBuffer.String()
	if len(s) > 8000 {
		s = "…" + s[len(s)-8000:]
	}
	return strings.TrimSpace(s)
}
