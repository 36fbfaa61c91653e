package market

import "time"

// Movement triggers: what made a sector a mover.
const (
	TriggerPctUp   = "pct_up"   // its change reached +threshold
	TriggerPctDown = "pct_down" // its change reached -threshold
	TriggerSurge   = "surge"    // it rose by the speed threshold within the speed window
	TriggerPlunge  = "plunge"   // it fell by the speed threshold within the speed window
)

// MovementEvent is the first time a sector reached one movement threshold
// on a trading day.
type MovementEvent struct {
	ID        int64
	Day       Day
	Kind      SectorKind
	Source    string
	BoardCode string
	BoardName string
	Trigger   string
	Direction string  // up or down
	Pct       float64 // the sector's change when it moved
	MainNet   float64 // its main-force net inflow then
	Delta     float64 // change within the speed window (speed triggers); NaN otherwise
	At        time.Time
}
