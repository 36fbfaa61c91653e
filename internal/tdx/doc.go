// Package tdx reads the local data files of the TongDaXin (通达信) desktop
// terminal, and writes the same layouts for tests and benchmarks. It does
// no network, HTTP or database work. Byte layouts follow
// shared/reference/tdx.md; section numbers below refer to it.
//
// # Files
//
//   - vipdoc/{sh,sz,bj}/lday/*.day: daily bars, 32-byte records of integer
//     prices (§3). DayRecords, DayBars, ReadBars; one day's bar by
//     binary search, DayOn.
//   - vipdoc/*/minline/*.lc1 and fzline/*.lc5: 1- and 5-minute bars with
//     float32 prices and a packed date word (§4.1); the older .1/.5 files
//     with uint32 price × 100 (§4.2). MinuteBars, ReadBars; one day's
//     minutes by binary search, MinutesOn.
//   - T0002/hq_cache/block_zs.dat, block_fg.dat, block_gn.dat: index,
//     style and concept blocks (§5.1). Blocks, ReadBlockDat. Membership is
//     capped at 400 by the format; Block.Truncated marks a full block.
//   - tdxzs.cfg, tdxzs2.cfg, tdxzs3.cfg: block codes, families and the T/X/H
//     industry hierarchy (§5.2). ZSEntries, ReadZSCfg, KeyParent.
//   - tdxhy.cfg, both the 5-field and the 6-field layout (§5.3). HYEntries,
//     ReadHYCfg. tdxbk.cfg short → full block names (§5.4). BKEntries,
//     ReadBKCfg.
//   - infoharbor_block.dat, uncapped block membership (§5.5, layout from
//     third-party parsers; no real file was available). HarborBlocks,
//     ReadInfoHarbor.
//   - T0002/hq_cache/spblock.dat, the special blocks (margin trading,
//     Stock Connect, index constituents, ETF and bond groups): GBK text,
//     "#name" then one market digit + code a line, no cap (eastmoney-part2.md
//     e.4; a real 2017 file is in testdata/spblock). SPBlocks, ReadSPBlock.
//   - incon.dat, industry code → name sections (§5.6). InconEntries,
//     ReadIncon.
//   - shm/szm.tnf (314-byte records) and shs/szs/bjs.tnf (360-byte records)
//     security names (§6.1, §6.2). Securities, ReadTNF.
//   - T0002/blocknew/blocknew.cfg and *.blk user blocks, ZXG.blk being the
//     watchlist (§5.8). UserBlockEntries, ReadBlockNewCfg, BLKCodes, ReadBLK.
//   - T0002/hq_cache/gbbq: ex-rights and share-capital events, 29-byte
//     records each encrypted with the public table gbbq.key
//     (shared/reference/adjust.md §1). GBBQ, ReadGBBQ, ListingDay; package
//     adjust turns category-1 events into adjusted prices.
//
// Open scans an install folder (C:\new_tdx and the like) and lists every
// file above it finds, by name and case-insensitively, with size and mtime
// for incremental imports; it never looks at the terminal version.
//
// Not supported: vipdoc/ds (futures, Hong Kong; another record layout),
// base.dbf, and block.dat (never seen locally). Bars are read unadjusted,
// as stored.
//
// # Scaling
//
// ScaleFor gives each security type's divisor and volume unit (§3.1), from
// market.Classify of the code the file name carries: A shares, preferred
// shares (SZ 140xxx) and SZ B shares ÷100; funds, ETFs, SH B shares and
// asset-backed securities (SZ 190/191xxx) ÷1000; bonds and repo ÷10000
// (price per 100 yuan face, repo an annual rate in percent) with volume in
// lots of 10 pieces; SH 751xxx ÷100 in lots of 10; indices and the
// terminal's 880/881 block indices ÷100 with volume in lots of 100; its
// statistic indices (880006 …, SZ 395xxx) ÷100 with volume as stored.
// Volumes are widened to shares (bonds and repo: pieces) because
// market.Bar.Volume is never in lots. Minute-file float prices are rounded
// to the type's decimals; every other float32 (amounts, gbbq values) is
// read as its shortest decimal (Decimal32). Bars carry their close
// instant: minute bars their end minute, daily bars 15:00 Asia/Shanghai.
//
// Some of it depends on the terminal's era, so ReadBars and Terminal decide
// it per file from the data and record it in BarFile.Scale and Flagged:
//
//   - Bond and repo .day prices are ×1000 in older installs and ×10000 in
//     newer ones; each file gets the divisor its data agrees with
//     (decideDivisor), or, when it cannot tell, ÷10000 and a Flag.
//   - An index's minute "volume" holds amount ÷ 100; its minute volumes
//     are computed from amounts with the day's shares per yuan taken from
//     its .day file, so they add up to the daily volume.
//   - A repo's volume word counts lots of 1,000 yuan or, in SH 204xxx
//     records of newer installs, 10,000; each record's volume becomes
//     pieces of 100 yuan by its own amount ÷ volume (repoVolumes).
//   - Statistic indices (880006 …, SZ 395xxx) hold counts, and early-1990s
//     index days close outside low..high: both are kept as the terminal
//     shows them and flagged, not rejected.
//
// # Errors
//
// Decoders never panic on any input. Bytes that cannot be what the format
// says are a *FormatError naming the file, byte offset (and line, for text)
// and reason. Record-level problems (a bad date, a zero price, a malformed
// line) are reported and decoding goes on with the next record; structural
// ones (a block file whose size contradicts its header) stop the file.
// A bar file that ends inside a record, as one the terminal is still
// writing does, is read up to its last whole record and the tail reported
// as a *PartialRecordError (errors.Is ErrPartialRecord), not as corruption.
//
// Every decoder has a streaming form (iter.Seq2 over an io.Reader, through
// one reused buffer) and a slice-returning ReadXxx(path) form. Files are
// opened read-only and never locked, so the terminal can keep writing.
// Codes become market.Code with the market from the folder, file prefix or
// the file's market digit; only files that give no market (block_*.dat
// members, tdxzs block codes) fall back to market.InferExchange.
//
// GBK text is decoded with the GB18030 decoder of golang.org/x/text, a
// superset of GBK.
package tdx
