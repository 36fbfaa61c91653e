package api

// InfoDeps are the collaborators of the hot-rank, news and financial-report
// endpoints (issue 7 fills this in).
type InfoDeps struct{}

// infoRoutes registers the hot-rank, news and financial-report endpoints.
func (s *Server) infoRoutes() {}
