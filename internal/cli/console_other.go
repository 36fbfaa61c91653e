//go:build !windows

package cli

// consoleProcesses is 0: only Windows closes a program's window when it
// exits, so only there is a window held open.
func consoleProcesses() int { return 0 }
