package api

// dashboardRoutes registers the embedded single-page dashboard (issue 9
// fills this in).
func (s *Server) dashboardRoutes() {}
