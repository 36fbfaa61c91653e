package indexmembers

import "mdqs/internal/market"

// Known is an index the terminal's block files name, with the fact that
// ties the block name to the index code.
type Known struct {
	Code     market.Code
	Name     string // the name the terminal's files give its block
	Evidence string
}

// Evidence of the mapping: the terminal's own name file (a real 2020
// szm.tnf, shared/testdata/tdx/ginkgo-2020, whose first records are the
// Shenzhen indices with their names), the shared references, and public
// index lists (JoinQuant's index table, a CSI/SSE code list of the
// constituent-history API at cnblogs shuorel/p/5454544, an Uqer code
// table at blog.csdn.net littleglacier/143161741, akshare-rs's
// index_secid); see docs/index-members.md.
const (
	evTNF      = "the terminal's szm.tnf (2020) names the code so"
	evEM       = "shared/reference/eastmoney.md: 1.000300 is the CSI 300 index; tdx.md §2: sh000300.day"
	evSSE      = "JoinQuant's index list and the shuorel constituent API: SSE code"
	evCSI      = "the shuorel constituent API and the Uqer code table: CSI index on its SSE code"
	evAkshare  = "akshare-rs index_secid: 1.000688"
	evRedmine  = "shared/testdata/tdx/redmine-2023: bj899050.day is the BSE 50 index"
	evUqer1000 = "the Uqer code table: ZZ1000 000852"
)

// known lists the index blocks mdqs records. A block whose name is not
// here is not an index mdqs can name a code for (融资融券, the Stock
// Connect lists, ETF and bond groups, and indices such as 中证2000,
// whose CSI code 932000 has no exchange code in mdqs's code scheme, or
// 中证A500, for which no source here gives a code), and is not recorded.
func known() []Known {
	k := func(code, name, ev string) Known { return Known{Code: market.MustCode(code), Name: name, Evidence: ev} }
	return []Known{
		k("000001.SH", "上证指数", evSSE),
		k("000009.SH", "上证380", evSSE),
		k("000010.SH", "上证180", evSSE),
		k("000016.SH", "上证50", evSSE),
		k("000300.SH", "沪深300", evEM),
		k("000688.SH", "科创50", evAkshare),
		k("000852.SH", "中证1000", evUqer1000),
		k("000903.SH", "中证100", evCSI),
		k("000905.SH", "中证500", evCSI),
		k("000906.SH", "中证800", evCSI),
		k("399001.SZ", "深证成指", evTNF),
		k("399005.SZ", "中小板指", evTNF),
		k("399006.SZ", "创业板指", evTNF),
		k("399007.SZ", "深证300", evTNF),
		k("399330.SZ", "深证100", evTNF),
		k("399673.SZ", "创业板50", evTNF),
		k("899050.BJ", "北证50", evRedmine),
	}
}

// Known lists the indices mdqs can record, by code.
func KnownIndices() []Known { return known() }

// CodeOf is the index a block name lists; ok is false for a name no
// fact ties to a code.
func CodeOf(block string) (market.Code, bool) {
	for _, k := range known() {
		if k.Name == block {
			return k.Code, true
		}
	}
	return market.Code{}, false
}

// NameOf is an index's block name, "" for one mdqs does not know.
func NameOf(code market.Code) string {
	for _, k := range known() {
		if k.Code == code {
			return k.Name
		}
	}
	return ""
}
