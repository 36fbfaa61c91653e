// Package minutepack packs one code's one day of intraday bars into one
// record, column by column, as delta-encoded integers, and reads it back
// bit for bit. It is a format only: no store, no I/O, pure functions.
//
// The store keeps prices in ten-thousandths of a yuan and amounts and the
// optional measures as float64; a record keeps exactly those values. Prices
// become integers in the largest tick that divides every price of the day
// (a cent for stocks, a tenth of a cent for funds), amounts and measures
// integers of the fewest decimals that give each value back exactly, and
// any value that fits neither (a NaN that is not market.Unknown, -0, an
// infinity, a float with more digits) is kept as its raw bits: a record
// never rounds. docs/minute-store.md draws the layout byte by byte and
// gives the measured sizes.
package minutepack
