package config

import "testing"

func TestLocalURL(t *testing.T) {
	for _, tt := range []struct{ addr, want string }{
		{"127.0.0.1:8080", "http://127.0.0.1:8080/"},
		{"0.0.0.0:8080", "http://127.0.0.1:8080/"}, // every interface: this machine's is loopback
		{"[::]:9000", "http://127.0.0.1:9000/"},
		{":8080", "http://127.0.0.1:8080/"},
		{"[::1]:8080", "http://[::1]:8080/"},
		{"192.168.1.20:8080", "http://192.168.1.20:8080/"},
		{"localhost:8081", "http://localhost:8081/"},
	} {
		if got := LocalURL(tt.addr); got != tt.want {
			t.Errorf("LocalURL(%q) = %q, want %q", tt.addr, got, tt.want)
		}
	}
}
