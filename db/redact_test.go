package db

import "testing"

func TestRedactHidesOnlyThePassword(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"mdqs.db", "mdqs.db"},
		{"file:x.db?mode=ro", "file:x.db?mode=ro"},
		{"postgres://mdqs:s3cret@db.lan:5432/mdqs?sslmode=disable", "postgres://mdqs:xxxxx@db.lan:5432/mdqs?sslmode=disable"},
		{"postgresql://mdqs@db.lan/mdqs", "postgresql://mdqs@db.lan/mdqs"},
		// libpq also takes the password as a parameter.
		{"postgres://mdqs@db.lan/mdqs?password=s3cret&sslmode=disable", "postgres://mdqs@db.lan/mdqs?password=xxxxx&sslmode=disable"},
		// A URL that does not parse cannot be searched for its password.
		{"postgres://mdqs:s3cret@db.lan:port/mdqs", "postgres://…"},
	} {
		if got := Redact(tt.in); got != tt.want {
			t.Errorf("Redact(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
