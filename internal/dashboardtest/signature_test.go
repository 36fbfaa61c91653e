package dashboardtest

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestDashboardSignsWithVersion2 serves the shipped configuration with
// auth.signature_v1 = false, so the server refuses the MD5 signature: the
// dashboard, on 127.0.0.1 (a secure context, so WebCrypto is there), logs
// in, learns signature_versions [2] from the token answer, and every panel
// and the live stream load, each request signed with version 2. In the
// page, sign.js agrees with testdata/signature-v2-vectors.json (the answers
// the server, mdqs call and the Python client check too).
func TestDashboardSignsWithVersion2(t *testing.T) {
	root := filepath.Join("..", "..")
	shipped, err := os.ReadFile(filepath.Join(root, "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	config := strings.Replace(string(shipped), "signature_v1 = true ", "signature_v1 = false", 1)
	if config == string(shipped) {
		t.Fatal("config.toml has no `signature_v1 = true` line to turn off")
	}
	s := newSessionWith(t, config)
	ctx, p, srv, fail := s.ctx, s.p, s.srv, s.fail
	if err := p.navigate(ctx, srv.base+"/"); err != nil {
		fail("%v", err)
	}
	login(t, ctx, p, fail, "")
	st := waitForPanels(t, ctx, p, fail, func(s pageState) bool { return true })
	checkRendered(t, st, fail)
	for deadline := time.Now().Add(30 * time.Second); st.Stream != "open"; time.Sleep(200 * time.Millisecond) {
		if time.Now().After(deadline) {
			fail("the live stream did not open (signed with version 2):\n%s", st)
		}
		p.eval(ctx, readState, &st)
	}
	var page struct {
		Version  int    `json:"version"`
		Versions []int  `json:"versions"`
		Secure   bool   `json:"secure"`
		Storage  string `json:"storage"`
	}
	err = p.eval(ctx, `import('/assets/api.js').then((m) => {
		const c = new m.Client(() => {});
		return { version: c.version, versions: c.signatureVersions, secure: window.isSecureContext, storage: sessionStorage.getItem('mdqs.session') };
	})`, &page)
	if err != nil || page.Version != 2 || len(page.Versions) != 1 || page.Versions[0] != 2 || !page.Secure {
		fail("the page's client: %+v (%v); want version 2 of [2] in a secure context", page, err)
	}
	checkSignatureVectors(t, ctx, p, fail)
}

// checkSignatureVectors runs the page's sign.js over the shared vectors.
func checkSignatureVectors(t *testing.T, ctx context.Context, p *page, fail func(string, ...any)) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "testdata", "signature-v2-vectors.json"))
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Wrong []string `json:"wrong"`
		Count int      `json:"count"`
	}
	err = p.eval(ctx, `import('/assets/sign.js').then(async (m) => {
		const v = `+string(raw)+`;
		const wrong = [];
		let count = 0;
		for (const c of v.canonical_query) {
			count++;
			if (m.canonicalQuery(c.query) !== c.canonical) wrong.push('canonical: ' + c.what);
		}
		for (const c of v.malformed_query) {
			count++;
			try { m.canonicalQuery(c.query); wrong.push('malformed accepted: ' + c.what); } catch {}
		}
		for (const c of v.signatures) {
			count++;
			const sig = await m.signatureV2(c.token, c.method, c.path, c.query, c.timestamp, c.nonce, c.body);
			if (sig !== c.signature) wrong.push('signature: ' + c.what);
		}
		return { wrong, count };
	})`, &got)
	if err != nil || len(got.Wrong) > 0 || got.Count < 30 {
		fail("sign.js in the page over the vectors: %v, %d checked, wrong: %q", err, got.Count, got.Wrong)
	}
	var v map[string][]json.RawMessage
	json.Unmarshal(raw, &v)
	t.Logf("sign.js in Chromium agrees with the %d vectors (%d canonical, %d malformed, %d signatures)", got.Count,
		len(v["canonical_query"]), len(v["malformed_query"]), len(v["signatures"]))
}
