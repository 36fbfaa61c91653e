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

	"mdqs/auth"
	"mdqs/client"
)

// Call runs `mdqs call [flags] METHOD PATH [BODY]`: it gets a token, signs
// the request, prints the response body and fails on a failure status.
func Call(ctx context.Context, env Env, args []string) error {
	fs := newFlags("call", env)
	addr := fs.String("addr", firstNonEmpty(env.Getenv("MDQS_ADDR"), "127.0.0.1:8080"), "server address or URL (env MDQS_ADDR)")
	id := fs.String("id", env.Getenv("MDQS_CLIENT_ID"), "client id (env MDQS_CLIENT_ID; default the demo client)")
	secret := fs.String("secret", env.Getenv("MDQS_CLIENT_SECRET"), "client secret (env MDQS_CLIENT_SECRET)")
	apiKey := fs.String("api-key", env.Getenv("MDQS_API_KEY"), "api-key header (env MDQS_API_KEY)")
	timeout := fs.Duration("timeout", 60*time.Second, "request timeout")
	pretty := fs.Bool("pretty", false, "indent the JSON answer")
	verbose := fs.Bool("v", false, "print the status line to stderr")
	fs.Usage = func() {
		fmt.Fprintln(env.Stderr, "usage: mdqs call [flags] METHOD PATH [BODY]\n  BODY is JSON text, @FILE, or - for standard input")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
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
	if *id == "" && *secret == "" {
		*id, *secret = auth.DemoClientID, auth.DemoSecret
	}
	if *id == "" || *secret == "" {
		return Usage("mdqs call: give both -id and -secret (or MDQS_CLIENT_ID and MDQS_CLIENT_SECRET)")
	}
	c := client.New(*addr, *id, *secret)
	c.APIKey = *apiKey
	c.HTTP.Timeout = *timeout
	resp, err := c.Do(ctx, method, path, body)
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
