package screener

// Waiting is how many callers wait for the build in flight.
func (f *Frame) Waiting() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.waiting
}
