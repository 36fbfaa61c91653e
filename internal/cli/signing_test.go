package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// A half-given client (an id without its secret, or the reverse) is a
// usage error naming the command, not the demo client's credentials.
func TestCallAndMCPWantBothIDAndSecret(t *testing.T) {
	for _, tc := range []struct {
		cmd  string
		run  func(context.Context, Env, []string) error
		args []string
	}{
		{"mdqs call", Call, []string{"-id", "desk", "GET", "/v1/api/whoami"}},
		{"mdqs call", Call, []string{"-secret", "s", "GET", "/v1/api/whoami"}},
		{"mdqs mcp", MCP, []string{"-id", "desk"}},
		{"mdqs mcp", MCP, []string{"-secret", "s"}},
	} {
		var out bytes.Buffer
		env := Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &out, Getenv: func(string) string { return "" }}
		err := tc.run(context.Background(), env, tc.args)
		if err == nil || !strings.Contains(err.Error(), tc.cmd+": give both -id and -secret") {
			t.Errorf("%s %v: %v, want a usage error asking for both -id and -secret", tc.cmd, tc.args, err)
		}
	}
}
