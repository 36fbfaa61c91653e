package market

import "time"

// Day arithmetic without time.Time: the K-line path counts and formats
// days for every bar, and time.Date in a location costs ~100 ns a call
// (issue 19's profile: 5 % of a year's K-lines went to counting trading
// days). A Day is a civil date, so plain proleptic Gregorian arithmetic
// (H. Hinnant's days_from_civil / civil_from_days) is exact; the tests
// check it against time.Date over centuries.

// epochDays is the days since 1970-01-01 of y-m-d; m and d may overflow
// their ranges as time.Date allows (Feb 31 is Mar 3, or Mar 2 in leap years).
func epochDays(y, m, d int) int64 {
	// bring the month into 1..12 first, carrying into the year
	m--
	y += m / 12
	m %= 12
	if m < 0 {
		m += 12
		y--
	}
	m++
	if m <= 2 {
		y--
	}
	era := y / 400
	if y < 0 && y%400 != 0 {
		era--
	}
	yoe := int64(y - era*400)
	mp := int64((m + 9) % 12) // March = 0
	doy := (153*mp+2)/5 + int64(d) - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return int64(era)*146097 + doe - 719468
}

// civil is the inverse of epochDays.
func civil(z int64) (y, m, d int) {
	z += 719468
	era := z / 146097
	if z < 0 && z%146097 != 0 {
		era--
	}
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	d = int(doy - (153*mp+2)/5 + 1)
	m = int(mp + 3)
	if m > 12 {
		m -= 12
	}
	y = int(yoe + era*400)
	if m <= 2 {
		y++
	}
	return y, m, d
}

// EpochDays is the day's number counted from 1970-01-01 (day 0).
func (d Day) EpochDays() int64 { return epochDays(d.Year(), int(d.Month()), d.Dom()) }

// DayFromEpochDays is the inverse of EpochDays.
func DayFromEpochDays(z int64) Day {
	y, m, dd := civil(z)
	return Day(y*10000 + m*100 + dd)
}

// AppendTo writes the day as YYYY-MM-DD.
func (d Day) AppendTo(b []byte) []byte {
	y, m, dd := d.Year(), int(d.Month()), d.Dom()
	if y < 0 || y > 9999 {
		return append(b, d.slowString()...)
	}
	return append(b, byte('0'+y/1000), byte('0'+y/100%10), byte('0'+y/10%10), byte('0'+y%10), '-',
		byte('0'+m/10), byte('0'+m%10), '-', byte('0'+dd/10), byte('0'+dd%10))
}

// noDSTSince is 1992-01-01 00:00 in Shanghai: China's last daylight saving
// time ended in September 1991, so from here on local time is UTC+8.
const noDSTSince = 694195200

// AppendTime writes the instant ts (Unix seconds) as the spec's local
// "YYYY-MM-DD HH:MM:SS", as FormatTime does, without building a time.Time.
func AppendTime(b []byte, ts int64) []byte {
	if ts < noDSTSince {
		return time.Unix(ts, 0).In(Shanghai()).AppendFormat(b, time.DateTime)
	}
	local := ts + 8*3600
	days, secs := local/86400, local%86400
	b = DayFromEpochDays(days).AppendTo(b)
	h, mi, s := secs/3600, secs/60%60, secs%60
	return append(b, ' ', byte('0'+h/10), byte('0'+h%10), ':', byte('0'+mi/10), byte('0'+mi%10), ':', byte('0'+s/10), byte('0'+s%10))
}
