package doctor

import "fmt"

// ServiceState is what the system's service manager says of mdqs's
// service (mdqs service status asks the same).
type ServiceState struct {
	Name     string
	Platform string // "windows-service", "linux-systemd", ...
	// Installed and Running; Err when the manager could not be asked.
	Installed, Running bool
	User               bool // a per-user service (systemd --user, a launchd agent)
	Err                error
}

func checkService(s ServiceState) Check {
	ck := Check{Name: "service", Status: OK, Details: map[string]any{"name": s.Name, "platform": s.Platform, "installed": s.Installed, "running": s.Running}}
	kind := "service " + s.Name
	if s.User {
		kind = "user service " + s.Name
	}
	switch {
	case s.Err != nil:
		ck.Status, ck.Found = Skip, "could not ask the service manager"
		if s.Platform != "" {
			ck.Found += " (" + s.Platform + ")"
		}
		ck.Found += ": " + s.Err.Error()
	case !s.Installed:
		ck.Found = kind + " is not installed; mdqs runs while its window is open"
		ck.Fix = "to start it with the machine: mdqs service install (as an administrator), see docs/operations.md"
	case s.Running:
		ck.Found = fmt.Sprintf("%s (%s) is installed and running: another server on its port or its store would collide with it", kind, s.Platform)
	default:
		ck.Found = fmt.Sprintf("%s (%s) is installed and stopped", kind, s.Platform)
		ck.Fix = "start it: mdqs service start"
	}
	return ck
}
