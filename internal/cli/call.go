package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"mdqs/internal/auth"
	"mdqs/internal/client"
)

const callSynopsis = `call [flags] METHOD PATH [BODY]
  BODY is JSON text, @FILE, or - for standard input; flags may come after
  the arguments (mdqs call GET /v1/api/whoami -pretty)`

// Call runs `mdqs call [flags] METHOD PATH [BODY]`: it signs the request
// with a token (the one cached for this address and client while it lasts,
// else a new one), prints the response body and fails on a failure status.
func Call(ctx context.Context, env Env, args []string) error {
	fs := newFlags("call", callSynopsis, env)
	addr := fs.String("addr", firstNonEmpty(env.Getenv("MDQS_ADDR"), "127.0.0.1:8080"), "server address or URL (env MDQS_ADDR)")
	id := fs.String("id", env.Getenv("MDQS_CLIENT_ID"), "client id (env MDQS_CLIENT_ID; default the demo client)")
	secret := fs.String("secret", env.Getenv("MDQS_CLIENT_SECRET"), "client secret (env MDQS_CLIENT_SECRET)")
	apiKey := fs.String("api-key", env.Getenv("MDQS_API_KEY"), "api-key header (env MDQS_API_KEY)")
	timeout := fs.Duration("timeout", 60*time.Second, "request timeout")
	pretty := fs.Bool("pretty", false, "indent the JSON answer")
	verbose := fs.Bool("v", false, "print the status line, and where the token came from, to stderr")
	streaming := fs.Bool("stream", false, "GET a text/event-stream (/v1/api/stream?...) and print its lines as they arrive, until interrupted or the server ends it; -timeout does not apply")
	useCache := fs.Bool("token-cache", true, "reuse the token of earlier calls to this address as this client, kept in the user's cache folder")
	if err := ParseFlags(env, fs, args); err != nil {
		return err
	}
	rest := fs.Args()
	if len(rest) < 2 || len(rest) > 3 {
		fs.Usage()
		return Usage("mdqs call: want METHOD PATH [BODY]")
	}
	method, path := strings.ToUpper(rest[0]), rest[1]
	if !strings.HasPrefix(path, "/") {
		return Usage("mdqs call: PATH must start with /, e.g. /v1/api/whoami")
	}
	var body []byte
	if len(rest) == 3 {
		var err error
		if body, err = readBodyArg(env, rest[2]); err != nil {
			return err
		}
	}
	c, err := signingClient("mdqs call", *addr, id, secret, *apiKey, *timeout)
	if err != nil {
		return err
	}

	note := func(format string, args ...any) {
		if *verbose {
			fmt.Fprintf(env.Stderr, format+"\n", args...)
		}
	}
	var keeper *tokenKeeper
	if *useCache {
		keeper = keepTokens(env, c, *id, note)
	}

	var resp *client.Response
	if *streaming {
		if method != http.MethodGet {
			return Usage("mdqs call: -stream takes GET only")
		}
		resp, err = c.Stream(ctx, path, nil, func(line string) error {
			_, err := fmt.Fprintln(env.Stdout, line)
			return err
		})
		if err != nil && ctx.Err() != nil && resp != nil {
			err = nil // interrupted: the way a stream is meant to end
		}
	} else {
		resp, err = c.Do(ctx, method, path, body)
	}
	note("signature: version %d", c.Version())
	if keeper != nil {
		keeper.keep(env, c, resp, "mdqs call")
	}
	var refused *client.TokenError
	if errors.As(err, &refused) {
		// Show the token endpoint's own envelope: it says what was wrong.
		resp, err = refused.Response, nil
	}
	if err != nil {
		return &ExitError{Code: 1, Err: err}
	}
	if *verbose {
		fmt.Fprintf(env.Stderr, "HTTP %d %s\n", resp.Status, http.StatusText(resp.Status))
	}
	out := resp.Body
	if *pretty {
		var buf bytes.Buffer
		if json.Indent(&buf, bytes.TrimSpace(resp.Body), "", "  ") == nil {
			out = append(buf.Bytes(), '\n')
		}
	}
	env.Stdout.Write(out)
	if len(out) > 0 && out[len(out)-1] != '\n' {
		fmt.Fprintln(env.Stdout)
	}
	if resp.Status >= 400 {
		return &ExitError{Code: 1, Err: fmt.Errorf("HTTP %d %s", resp.Status, http.StatusText(resp.Status))}
	}
	return nil
}

// detailOf is the detail of a failure envelope, "" when there is none.
func detailOf(r *client.Response) string {
	var env struct {
		Detail string `json:"detail"`
	}
	json.Unmarshal(r.Body, &env)
	return env.Detail
}

func readBodyArg(env Env, arg string) ([]byte, error) {
	switch {
	case arg == "-":
		return io.ReadAll(env.Stdin)
	case strings.HasPrefix(arg, "@"):
		b, err := os.ReadFile(arg[1:])
		if err != nil {
			return nil, Usage("mdqs call: %v", err)
		}
		return b, nil
	}
	return []byte(arg), nil
}

func firstNonEmpty(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}

// signingClient is the client of mdqs call and mdqs mcp: the demo client
// when neither -id nor -secret is given (the demo server's), else both.
// Only a 401 about the token itself earns a new one: any other would fail
// the same way, and the new token would evict one of the client's.
func signingClient(cmd, addr string, id, secret *string, apiKey string, timeout time.Duration) (*client.Client, error) {
	if *id == "" && *secret == "" {
		*id, *secret = auth.DemoClientID, auth.DemoSecret
	}
	if *id == "" || *secret == "" {
		return nil, Usage("%s: give both -id and -secret (or MDQS_CLIENT_ID and MDQS_CLIENT_SECRET)", cmd)
	}
	c := client.New(addr, *id, *secret)
	c.APIKey = apiKey
	c.HTTP.Timeout = timeout
	c.Renew = func(r *client.Response) bool { return auth.TokenRenewable(detailOf(r)) }
	return c, nil
}
