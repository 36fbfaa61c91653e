//go:build !linux

package db

// lockHolder is not known here: only Linux lists every process's locks.
func lockHolder(path string) int { return 0 }

// openHolders is not known here either.
func openHolders(path string) []int { return nil }

func processName(pid int) (name, command string) { return "", "" }
