package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"mdqs/internal/client"
	"mdqs/internal/mcpserver"
)

const mcpSynopsis = `mcp [flags]
  serves MCP (the Model Context Protocol) on standard input and output for a
  desktop agent (Claude Desktop, Cursor, Cline, Cherry Studio), whose tools
  call a running mdqs as a client, with the same variables and token cache
  as mdqs call; the agent starts it (docs/mcp.md has each one's snippet)`

// MCP runs `mdqs mcp`: an MCP server on stdio whose tools are mdqs's
// HTTP API, reached as `mdqs call` reaches it (address, client
// credentials, token cache). It serves whatever the server does: when no
// mdqs answers, it says so on stderr, where agents log, with how to start
// one, and each tool call answers the same as its error until one is up;
// a server that goes away mid-session is a tool error too, never the end
// of the session.
func MCP(ctx context.Context, env Env, args []string) error {
	fs := newFlags("mcp", mcpSynopsis, env)
	addr := fs.String("addr", firstNonEmpty(env.Getenv("MDQS_ADDR"), "127.0.0.1:8080"), "the mdqs server's address or URL (env MDQS_ADDR)")
	id := fs.String("id", env.Getenv("MDQS_CLIENT_ID"), "client id (env MDQS_CLIENT_ID; default the demo client)")
	secret := fs.String("secret", env.Getenv("MDQS_CLIENT_SECRET"), "client secret (env MDQS_CLIENT_SECRET); prefer the variable: an agent's configuration file shows its arguments")
	apiKey := fs.String("api-key", env.Getenv("MDQS_API_KEY"), "api-key header (env MDQS_API_KEY)")
	timeout := fs.Duration("timeout", 60*time.Second, "one API call's time limit")
	useCache := fs.Bool("token-cache", true, "share the token of mdqs call for this address and client, kept in the user's cache folder")
	if err := ParseFlags(env, fs, args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return Usage("mdqs mcp: unexpected argument %q (it takes flags only, and speaks MCP on stdin and stdout)", fs.Arg(0))
	}
	c, err := signingClient("mdqs mcp", *addr, id, secret, *apiKey, *timeout)
	if err != nil {
		return err
	}
	api := &remoteAPI{c: c, env: env, id: *id}
	if *useCache {
		api.keeper = keepTokens(env, c, *id, func(string, ...any) {})
	}
	api.hello(ctx)
	srv := mcpserver.New(api, mcpserver.Options{Version: env.Version})
	err = srv.Run(ctx, &mcp.IOTransport{Reader: io.NopCloser(env.Stdin), Writer: nopWriteCloser{env.Stdout}})
	if err != nil && (ctx.Err() != nil || errors.Is(err, io.EOF) || strings.Contains(err.Error(), "server is closing")) {
		return nil // the agent closed stdin, or a signal: the way a session ends
	}
	return err
}

// remoteAPI is the API of a running mdqs, for the tools of mdqs mcp.
type remoteAPI struct {
	c      *client.Client
	env    Env
	id     string
	keeper *tokenKeeper
}

func (r *remoteAPI) Do(ctx context.Context, method, target string, body []byte) (*client.Response, error) {
	resp, err := r.c.Do(ctx, method, target, body)
	if r.keeper != nil {
		r.keeper.keep(r.env, r.c, resp, "mdqs mcp")
	}
	var refused *client.TokenError
	if errors.As(err, &refused) {
		return refused.Response, nil // the token endpoint's own answer (a wrong secret): the tool's error says it
	}
	if err != nil && ctx.Err() == nil {
		return nil, r.unreachable(err)
	}
	return resp, err
}

// unreachable says that no mdqs answers, and what to do.
func (r *remoteAPI) unreachable(err error) error {
	var ne net.Error
	var oe *net.OpError
	if errors.As(err, &oe) || (errors.As(err, &ne) && ne.Timeout()) {
		return fmt.Errorf("no mdqs answers at %s (%v): start one with `mdqs serve` (or `go run .` in its source folder), "+
			"or set MDQS_ADDR to the address it listens on", r.c.BaseURL, err)
	}
	return fmt.Errorf("mdqs at %s: %w", r.c.BaseURL, err)
}

// hello tells the agent's log (stderr) which server and client the tools
// use, or why they cannot yet; it never stops the session.
func (r *remoteAPI) hello(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	resp, err := r.Do(ctx, http.MethodGet, "/v1/api/whoami", nil)
	switch {
	case err != nil:
		fmt.Fprintf(r.env.Stderr, "mdqs mcp: %v\nmdqs mcp: serving MCP on stdio anyway: each tool answers this error until mdqs is up\n", err)
	case resp.Status != http.StatusOK:
		fmt.Fprintf(r.env.Stderr, "mdqs mcp: mdqs at %s refused client %s: HTTP %d %s\n", r.c.BaseURL, r.id, resp.Status, strings.TrimSpace(string(resp.Body)))
	default:
		fmt.Fprintf(r.env.Stderr, "mdqs mcp: serving MCP on stdio for mdqs at %s as client %s\n", r.c.BaseURL, r.id)
	}
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
