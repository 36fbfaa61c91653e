package doctor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"syscall"
	"time"

	"mdqs/internal/config"
)

// checkPort tries server.addr as serve will: free, held by an mdqs that
// answers /healthz (it already serves), or held by another program.
func checkPort(ctx context.Context, d Deps) Check {
	addr := d.Config.Server.Addr
	ck := Check{Name: "port", Details: map[string]any{"addr": addr}}
	ln, err := net.Listen("tcp", addr)
	if err == nil {
		ln.Close()
		ck.Status, ck.Found = OK, addr+" is free"
		return ck
	}
	// EADDRINUSE, or Windows's WSAEADDRINUSE (10048), which package
	// syscall does not name there.
	if !errors.Is(err, syscall.EADDRINUSE) && !errors.Is(err, syscall.Errno(10048)) {
		ck.Status, ck.Found = Fail, fmt.Sprintf("cannot listen on %s: %v", addr, err)
		ck.Fix = "give server.addr (or -addr) a HOST:PORT of this machine, e.g. 127.0.0.1:8080; ports under 1024 need an administrator"
		return ck
	}
	url := config.LocalURL(addr)
	if instance, ok := askMdqs(ctx, d, url+"healthz"); ok {
		ck.Details.(map[string]any)["held_by"] = "mdqs"
		ck.Details.(map[string]any)["instance"] = instance
		ck.Status = Warn
		ck.Found = fmt.Sprintf("%s is held by an mdqs that is running (instance %s answers %shealthz): it already serves; open %s", addr, instance, url, url)
		ck.Fix = "nothing, if that is the server you meant; to start another, stop that one first (mdqs service stop, or Ctrl+C in its window), " +
			"or give this one another port: -addr 127.0.0.1:8081 (or server.addr in config.toml)"
		return ck
	}
	ck.Details.(map[string]any)["held_by"] = "another program"
	ck.Status = Fail
	ck.Found = fmt.Sprintf("%s is held by another program (it does not answer %shealthz as mdqs does), so serve cannot listen there", addr, url)
	ck.Fix = "stop that program, or serve on another port: -addr 127.0.0.1:8081 (or server.addr in config.toml)"
	return ck
}

// askMdqs asks url (a /healthz) whether an mdqs answers there: status 200,
// {"status":"ok"}, and the instance header every mdqs answer carries.
func askMdqs(ctx context.Context, d Deps, url string) (instance string, ok bool) {
	ctx, cancel := context.WithTimeout(ctx, min(d.Timeout, 2*time.Second))
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return "", false
	}
	client := d.HTTP
	if client == nil {
		client = &http.Client{Transport: &http.Transport{Proxy: nil}}
	}
	resp, err := client.Do(req)
	if err != nil {
		return "", false
	}
	defer resp.Body.Close()
	var body struct {
		Status string `json:"status"`
	}
	instance = resp.Header.Get("X-Mdqs-Instance")
	if resp.StatusCode != http.StatusOK || json.NewDecoder(resp.Body).Decode(&body) != nil || body.Status != "ok" || instance == "" {
		return "", false
	}
	return instance, true
}
