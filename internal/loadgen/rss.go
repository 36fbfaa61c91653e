package loadgen

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// ProcRSS reads a process's resident set size from /proc/PID/status
// (VmRSS; Linux only).
func ProcRSS(pid int) (uint64, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:")
		if !ok {
			continue
		}
		fields := strings.Fields(rest) // "123456 kB"
		if len(fields) != 2 || fields[1] != "kB" {
			return 0, fmt.Errorf("/proc/%d/status: unexpected VmRSS line %q", pid, sc.Text())
		}
		kb, err := strconv.ParseUint(fields[0], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("/proc/%d/status: %w", pid, err)
		}
		return kb << 10, nil
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return 0, fmt.Errorf("/proc/%d/status: no VmRSS line", pid)
}
