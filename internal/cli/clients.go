package cli

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"text/tabwriter"
	"time"

	"mdqs/internal/auth"
	"mdqs/internal/market"
)

var clientIDPattern = regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)

const clientUsage = `usage: mdqs client COMMAND [flags]

commands:
  add      create or replace a client and print its secret; creates the
           database when there is none (a first client on a fresh install)
  list     list the clients and their live tokens
  disable  disable a client and revoke its tokens
  enable   enable a disabled client

Each works on -db FILE, else server.db of the configuration (-config), and
all but add refuse a database file that does not exist.
Run "mdqs client COMMAND -h" for a command's flags.`

// clientMissing is what to do about a missing store: client commands other
// than add only read or change clients that must already be there.
const clientMissing = "give -db with the server's database file, or run the command in its folder (mdqs serve or mdqs client add create it)"

// Clients runs `mdqs client add|list|disable|enable`.
func Clients(ctx context.Context, env Env, args []string) error {
	sub, rest, err := subcommand(env, "client", args, clientUsage)
	if sub == "" {
		return err
	}
	switch sub {
	case "add":
		return clientAdd(ctx, env, rest)
	case "list":
		return clientList(ctx, env, rest)
	case "disable":
		return clientSetEnabled(ctx, env, rest, false)
	case "enable":
		return clientSetEnabled(ctx, env, rest, true)
	}
	return Usage("mdqs client: unknown command %q (want add, list, disable or enable)", sub)
}

func clientAdd(ctx context.Context, env Env, args []string) error {
	fs := newFlags("client add", "client add -id ID [-secret S] [-scopes a,b|*] [-expires YYYY-MM-DD] [-api-key K] [-log] [-db FILE] [-config FILE]", env)
	id := fs.String("id", "", "client id (letters, digits, . _ -; required)")
	secret := fs.String("secret", "", "client secret (at least 8 characters); generated when absent")
	scopes := fs.String("scopes", auth.DefaultScopes().String(), "comma-separated scopes of "+joinedScopes()+`, or * for every scope but mcp ("*,mcp" for all)`)
	expires := fs.String("expires", "", "last day the client may be used, YYYY-MM-DD (Asia/Shanghai); none = never")
	apiKey := fs.String("api-key", "", "require this api-key header (at least 16 characters)")
	enableLog := fs.Bool("log", false, "log this client's requests (enable_log)")
	sf := storeFlags{
		db:     fs.String("db", "", "database file (default: server.db of the configuration); created when it does not exist"),
		config: fs.String("config", "", "configuration file (default ./config.toml when present, else the built-in defaults)"),
	}
	if err := ParseFlags(env, fs, args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return Usage("mdqs client add: unexpected argument %q", fs.Arg(0))
	}
	if !clientIDPattern.MatchString(*id) {
		return Usage("-id is required: 1-64 letters, digits, '.', '_' or '-'")
	}
	sc, err := auth.ParseScopes(*scopes)
	if err != nil {
		return Usage("-scopes: %v", err)
	}
	now := time.Now()
	var expiresAt time.Time
	if *expires != "" {
		d, err := market.ParseDay(*expires)
		if err != nil {
			return Usage("-expires: %v", err)
		}
		expiresAt = d.AddDays(1).Start() // valid through that whole day
		if !expiresAt.After(now) {
			return Usage("-expires %s is already past", *expires)
		}
	}
	if *apiKey != "" && len(*apiKey) < 16 {
		return Usage("-api-key must be at least 16 characters: it is stored as a fast hash")
	}
	if *secret == "" {
		if *secret, err = auth.NewSecret(); err != nil {
			return err
		}
	} else if len(*secret) < 8 {
		return Usage("-secret must be at least 8 characters")
	}
	hash, err := auth.HashSecret(*secret, auth.DefaultKDF)
	if err != nil {
		return err
	}
	c := auth.Client{ID: *id, SecretHash: hash, Scopes: sc, Enabled: true, ExpiresAt: expiresAt, EnableLog: *enableLog, CreatedAt: now, UpdatedAt: now}
	if *apiKey != "" {
		c.APIKeyHash = auth.HashToken(*apiKey)
	}
	// A fresh install's first step may be its first client, before any
	// server has run: add is the one client command that creates the store.
	store, err := openStore(ctx, env, sf, true, "")
	if err != nil {
		return err
	}
	defer store.Close()
	replaced, err := store.PutClient(ctx, c)
	if err != nil {
		return err
	}
	verb := "created"
	if replaced {
		verb = "replaced (its old tokens are revoked)"
	}
	fmt.Fprintf(env.Stdout, "client %s %s\n", c.ID, verb)
	fmt.Fprintf(env.Stdout, "client_id=%s\nclient_secret=%s\nscopes=%s\nexpires=%s\napi_key=%v\nenable_log=%v\n",
		c.ID, *secret, c.Scopes, expiryText(c.ExpiresAt), c.APIKeyHash != "", c.EnableLog)
	fmt.Fprintln(env.Stderr, "note: mdqs keeps only a hash of the secret; store it now, it cannot be shown again")
	return nil
}

func clientList(ctx context.Context, env Env, args []string) error {
	fs := newFlags("client list", "client list [-db FILE] [-config FILE]", env)
	sf := addStoreFlags(fs, false)
	if err := ParseFlags(env, fs, args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return Usage("mdqs client list: unexpected argument %q", fs.Arg(0))
	}
	store, err := openStore(ctx, env, sf, false, clientMissing)
	if err != nil {
		return err
	}
	defer store.Close()
	list, err := store.Clients(ctx, time.Now())
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tENABLED\tSCOPES\tEXPIRES\tAPI_KEY\tLOG\tLIVE_TOKENS\tUPDATED")
	for _, c := range list {
		fmt.Fprintf(tw, "%s\t%v\t%s\t%s\t%v\t%v\t%d\t%s\n", c.ID, c.Enabled, c.Scopes, expiryText(c.ExpiresAt),
			c.APIKeyHash != "", c.EnableLog, c.LiveTokens, market.FormatTime(c.UpdatedAt))
	}
	return tw.Flush()
}

func clientSetEnabled(ctx context.Context, env Env, args []string, enabled bool) error {
	name := map[bool]string{true: "enable", false: "disable"}[enabled]
	fs := newFlags("client "+name, "client "+name+" -id ID [-db FILE] [-config FILE]", env)
	id := fs.String("id", "", "client id (required)")
	sf := addStoreFlags(fs, false)
	if err := ParseFlags(env, fs, args); err != nil {
		return err
	}
	if *id == "" {
		return Usage("-id is required")
	}
	if fs.NArg() != 0 {
		return Usage("mdqs client %s: unexpected argument %q", name, fs.Arg(0))
	}
	store, err := openStore(ctx, env, sf, false, clientMissing)
	if err != nil {
		return err
	}
	defer store.Close()
	if err := store.SetClientEnabled(ctx, *id, enabled, time.Now()); err != nil {
		if market.KindOf(err) == market.KindNotFound {
			return &ExitError{Code: 1, Err: fmt.Errorf("no client %q", *id)}
		}
		return err
	}
	if enabled {
		fmt.Fprintf(env.Stdout, "client %s enabled\n", *id)
	} else {
		fmt.Fprintf(env.Stdout, "client %s disabled; its tokens are revoked\n", *id)
	}
	return nil
}

func expiryText(t time.Time) string {
	if t.IsZero() {
		return "never"
	}
	return market.FormatTime(t)
}

// joinedScopes names the grantable scopes, as -scopes takes them.
func joinedScopes() string {
	names := make([]string, 0, len(auth.AllScopes()))
	for _, sc := range auth.AllScopes() {
		names = append(names, string(sc))
	}
	return strings.Join(names, ",")
}
