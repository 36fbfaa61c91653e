//go:build windows

package cli

import (
	"unsafe"

	"golang.org/x/sys/windows"
)

// getConsoleProcessList is kernel32's GetConsoleProcessList, which package
// windows does not wrap.
var getConsoleProcessList = windows.NewLazySystemDLL("kernel32.dll").NewProc("GetConsoleProcessList")

// consoleProcesses is how many processes share this process's console: 1
// when Explorer made the console for mdqs alone (a double click), 2 or
// more when a shell (cmd, PowerShell) started it in its own window, 0 when
// there is no console (a service) or the call fails.
func consoleProcesses() int {
	if getConsoleProcessList.Find() != nil {
		return 0
	}
	// The list itself is not needed, only its length, which the call
	// returns even when the buffer is too small for the list.
	var list [4]uint32
	n, _, _ := getConsoleProcessList.Call(uintptr(unsafe.Pointer(&list[0])), uintptr(len(list)))
	return int(n)
}
