package cli

import (
	"fmt"
	"io"

	"mdqs/internal/config"
)

// The first run: a trader on Windows double-clicks mdqs.exe, which serves
// the demo in a console window of its own. What that window says is all
// the guidance there is, so it says where to go and how to log in, and
// an error stays on screen until it has been read.

// DemoClientOn reports that the server seeds the well-known demo client:
// asked for (demo.enabled in demo mode, demo.live_client in live mode)
// and reachable from this machine alone, since its secret is public.
func DemoClientOn(cfg config.Config) bool {
	wanted := cfg.Demo.Enabled
	if !cfg.DemoMode() {
		wanted = cfg.Demo.LiveClient
	}
	return wanted && config.IsLoopback(cfg.Server.Addr)
}

// Banner is what serve prints once it listens at addr (the listener's
// address): the page to open and, where the demo client is seeded, its
// credentials, in English and in Chinese.
func Banner(w io.Writer, cfg config.Config, addr string) {
	url := config.LocalURL(addr)
	if cfg.DemoMode() {
		fmt.Fprintf(w, "mdqs serves the demo market (offline, made-up prices) at %s\nmdqs 正在提供演示行情（离线，虚构数据）：%s\n", url, url)
	} else {
		fmt.Fprintf(w, "mdqs serves live market data at %s\nmdqs 正在提供实时行情：%s\n", url, url)
	}
	if DemoClientOn(cfg) {
		fmt.Fprintf(w, "  Open %s in a browser and log in as demo with the secret demo-secret.\n  打开 %s ，用户名 demo，密钥 demo-secret\n", url, url)
	} else {
		fmt.Fprintf(w, "  Open %s and log in with a client of yours (mdqs client add -id NAME prints its secret).\n"+
			"  打开 %s ，用 mdqs client add -id 名称 添加的客户端及其密钥登录。\n", url, url)
	}
	fmt.Fprintln(w, "  Stop it with Ctrl+C or by closing this window. 按 Ctrl+C 或关闭此窗口即停止。")
}

// HoldOnError keeps the console window open after a failed run when mdqs
// is the only process attached to it (started from Explorer by a double
// click, whose window would otherwise close before the error is read),
// until Enter is pressed. In a shell's window, or with no console, it
// returns at once.
func HoldOnError(code int, in io.Reader, out io.Writer) {
	holdOnError(code, consoleProcesses(), in, out)
}

// holdOnError is HoldOnError for a console with processes attached (0:
// none, or not known); it reports whether it waited.
func holdOnError(code, processes int, in io.Reader, out io.Writer) bool {
	if code == 0 || processes != 1 {
		return false
	}
	fmt.Fprint(out, "\n按 Enter 键关闭窗口 / press Enter to close ")
	// One byte at a time: nothing past the Enter is consumed.
	b := make([]byte, 1)
	for {
		if n, err := in.Read(b); err != nil || n == 1 && b[0] == '\n' {
			return true
		}
	}
}
