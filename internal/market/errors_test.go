package market

import (
	"errors"
	"fmt"
	"testing"
)

func TestKindOfFollowsTheChain(t *testing.T) {
	base := Errorf(KindNotFound, "no board %q", "BK0001")
	wrapped := fmt.Errorf("loading: %w", base)
	if got := KindOf(wrapped); got != KindNotFound {
		t.Fatalf("KindOf(wrapped) = %v, want not_found", got)
	}
	if got := KindOf(errors.New("plain")); got != KindInternal {
		t.Fatalf("KindOf(plain) = %v, want internal", got)
	}
	if got := KindOf(nil); got != KindInternal {
		t.Fatalf("KindOf(nil) = %v", got)
	}
}

func TestErrorTextsKeepSpecMessageAndDetail(t *testing.T) {
	e := Errorf(KindInvalid, "top must be a positive integer").(*Error)
	if e.Message != "missing or invalid params" || e.Detail != "top must be a positive integer" {
		t.Fatalf("Errorf = %+v", e)
	}
	cause := errors.New("disk I/O")
	w := Wrap(KindUnavailable, cause, "write")
	if !errors.Is(w, cause) {
		t.Fatal("Wrap does not unwrap to its cause")
	}
	if Wrap(KindInternal, nil, "x") != nil {
		t.Fatal("Wrap(nil) != nil")
	}
	if got := E(KindNotFound, "board not found").Error(); got != "board not found" {
		t.Fatalf("E().Error() = %q", got)
	}
}
