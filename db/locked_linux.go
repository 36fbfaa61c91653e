package db

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
)

// The lock bytes SQLite's unix VFS takes with fcntl: in WAL mode the
// writer holds byte 120 of the -shm file; in rollback mode, or in WAL mode
// with locking_mode=EXCLUSIVE, the writer holds the main file's PENDING,
// RESERVED or SHARED bytes.
const (
	walWriteLockByte = 120
	pendingByte      = 0x40000000
	sharedLast       = pendingByte + 2 + 510 - 1
)

// lockHolder is the pid of another process holding a write lock on the
// database at path, from /proc/locks (read, never an open of the files:
// closing any descriptor of a file drops every POSIX lock this process
// holds on it, SQLite's included). 0 if none is found.
func lockHolder(path string) int {
	data, err := os.ReadFile("/proc/locks")
	if err != nil {
		return 0
	}
	if pid := writeLockHolder(data, path+"-shm", walWriteLockByte, walWriteLockByte); pid != 0 {
		return pid
	}
	return writeLockHolder(data, path, pendingByte, sharedLast)
}

// writeLockHolder finds, in /proc/locks, a write lock held by another
// process on file overlapping the bytes [lo, hi].
func writeLockHolder(locks []byte, file string, lo, hi int64) int {
	holder := 0
	eachLock(locks, file, func(write bool, pid int, start, end int64) bool {
		if write && start <= hi && end >= lo {
			holder = pid
			if pid < 0 { // an OFD lock, which has no owning pid
				holder = -1
			}
			return false
		}
		return true
	})
	return holder
}

// openHolders lists the other processes that have the database at path
// open: in WAL mode every connection holds a read lock on a byte of the
// -shm file for as long as it is open, so a running server shows there,
// idle or not; a writer in rollback mode locks the main file.
func openHolders(path string) []int {
	data, err := os.ReadFile("/proc/locks")
	if err != nil {
		return nil
	}
	var pids []int
	for _, file := range []string{path + "-shm", path} {
		eachLock(data, file, func(_ bool, pid int, _, _ int64) bool {
			if pid > 0 && !slices.Contains(pids, pid) {
				pids = append(pids, pid)
			}
			return true
		})
	}
	slices.Sort(pids)
	return pids
}

// eachLock calls fn with each lock /proc/locks lists on file held by a
// process other than this one (a waiter's line, with "->", is not a held
// lock), until fn returns false.
func eachLock(locks []byte, file string, fn func(write bool, pid int, start, end int64) bool) {
	var st syscall.Stat_t
	if err := syscall.Stat(file, &st); err != nil {
		return
	}
	dev := uint64(st.Dev)
	major := (dev>>8)&0xfff | (dev>>32)&^0xfff
	minor := dev&0xff | (dev>>12)&^0xff
	id := fmt.Sprintf("%02x:%02x:%d", major, minor, st.Ino)
	self := os.Getpid()
	sc := bufio.NewScanner(bytes.NewReader(locks))
	for sc.Scan() {
		// "5: POSIX  ADVISORY  WRITE 13568 fe:00:10013107 120 120"
		f := strings.Fields(sc.Text())
		if len(f) != 8 || (f[3] != "WRITE" && f[3] != "READ") || f[5] != id {
			continue
		}
		pid, err := strconv.Atoi(f[4])
		if err != nil || pid == self {
			continue
		}
		start, err := strconv.ParseInt(f[6], 10, 64)
		if err != nil {
			continue
		}
		end := int64(1<<63 - 1)
		if f[7] != "EOF" {
			if end, err = strconv.ParseInt(f[7], 10, 64); err != nil {
				continue
			}
		}
		if !fn(f[3] == "WRITE", pid, start, end) {
			return
		}
	}
}

// processName is the program's name and command line of pid.
func processName(pid int) (name, command string) {
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid)); err == nil {
		name = strings.TrimSpace(string(b))
	}
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid)); err == nil {
		command = strings.TrimSpace(strings.ReplaceAll(string(bytes.TrimRight(b, "\x00")), "\x00", " "))
		if len(command) > 300 {
			command = command[:300] + "..."
		}
	}
	return name, command
}
