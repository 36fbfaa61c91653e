package config

import "net"

// LocalURL is the address to open in a browser on this machine for a
// server listening at addr (server.addr, or a listener's address): a
// server on every interface (0.0.0.0, ::, no host) is reached here at
// 127.0.0.1, which is also a name its Host check lets in.
func LocalURL(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "http://" + addr + "/"
	}
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, port) + "/"
}
