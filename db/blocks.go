package db

import (
	"context"
	"database/sql"
	"time"

	"mdqs/internal/market"
)

// Block is a named group of securities: an industry, concept, style or
// index block of the terminal, or a user's own block.
type Block struct {
	Kind      string // industry, research, concept, style, index, user
	Name      string
	FullName  string // the untruncated name where the source has one
	Code      string // the block's own index code (880xxx.SH), "" if none
	Parent    string // the parent block's name in a hierarchy, "" at the top
	Truncated bool   // the source caps membership and this block hit the cap
	Members   []market.Code
	Count     int // members (filled when read back)
}

// ReplaceBlocks swaps every block of a source for a new set, members
// included, in one transaction: readers see the old set or the new one.
func (s *Store) ReplaceBlocks(ctx context.Context, source string, blocks []Block, now time.Time) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM block_members WHERE source = ?`, source); err != nil {
			return classify(err, "clear block members")
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM blocks WHERE source = ?`, source); err != nil {
			return classify(err, "clear blocks")
		}
		bst, err := tx.PrepareContext(ctx, `INSERT INTO blocks(kind, name, full_name, code, parent, truncated, member_count,
			source, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(kind, name) DO UPDATE SET full_name = excluded.full_name,
			code = excluded.code, parent = excluded.parent, truncated = excluded.truncated, member_count = excluded.member_count,
			source = excluded.source, updated_at = excluded.updated_at`)
		if err != nil {
			return classify(err, "prepare blocks")
		}
		defer bst.Close()
		mst, err := tx.PrepareContext(ctx, `INSERT INTO block_members(kind, block, code, source) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING`)
		if err != nil {
			return classify(err, "prepare block members")
		}
		defer mst.Close()
		for _, b := range blocks {
			if _, err := bst.ExecContext(ctx, b.Kind, b.Name, b.FullName, b.Code, b.Parent, flag(b.Truncated), len(b.Members), source, now.UnixMilli()); err != nil {
				return classify(err, "insert block")
			}
			for _, c := range b.Members {
				if _, err := mst.ExecContext(ctx, b.Kind, b.Name, c.String(), source); err != nil {
					return classify(err, "insert block member")
				}
			}
		}
		return nil
	})
}

// BlockQuery selects blocks.
type BlockQuery struct {
	Kind    string // "": every kind
	Keyword string // substring of name, full name or code
}

// Blocks lists blocks with their member counts, by kind then name.
func (s *Store) Blocks(ctx context.Context, q BlockQuery) ([]Block, error) {
	var f filter
	if q.Kind != "" {
		f.and("kind = ?", q.Kind)
	}
	if q.Keyword != "" {
		like := likePattern(q.Keyword)
		f.and(`(lower(name) LIKE ? ESCAPE '\' OR lower(full_name) LIKE ? ESCAPE '\' OR lower(code) LIKE ? ESCAPE '\')`, like, like, like)
	}
	rows, err := s.r.QueryContext(ctx, `SELECT kind, name, full_name, code, parent, truncated, member_count FROM blocks WHERE `+
		f.where()+` ORDER BY kind, name`, f.args...)
	if err != nil {
		return nil, classify(err, "read blocks")
	}
	defer rows.Close()
	out := []Block{}
	for rows.Next() {
		var b Block
		if err := rows.Scan(&b.Kind, &b.Name, &b.FullName, &b.Code, &b.Parent, &b.Truncated, &b.Count); err != nil {
			return nil, classify(err, "read blocks")
		}
		out = append(out, b)
	}
	return out, classify(rows.Err(), "read blocks")
}

// Member is a block member with its name.
type Member struct {
	Code string
	Name string
}

// BlockMembers finds a block by name, full name or code (within a kind when
// given) and lists its members with their names. No such block is a
// not-found error; a block without members (a user block emptied in the
// terminal) is listed by Blocks, so it answers an empty list.
func (s *Store) BlockMembers(ctx context.Context, kind, block string) (Block, []Member, error) {
	q := `SELECT kind, name, full_name, code, parent, truncated, member_count FROM blocks
		WHERE (name = ? OR full_name = ? OR upper(code) = upper(?) OR upper(code) = upper(?) || '.SH')`
	args := []any{block, block, block, block}
	if kind != "" {
		q += ` AND kind = ?`
		args = append(args, kind)
	}
	var b Block
	err := s.r.QueryRowContext(ctx, q+` ORDER BY kind LIMIT 1`, args...).Scan(&b.Kind, &b.Name, &b.FullName, &b.Code, &b.Parent, &b.Truncated, &b.Count)
	if err == sql.ErrNoRows {
		return b, nil, market.Errorf(market.KindNotFound, "no block %q", block)
	}
	if err != nil {
		return b, nil, classify(err, "find block")
	}
	rows, err := s.r.QueryContext(ctx, `SELECT m.code, coalesce(s.name, '') FROM block_members m LEFT JOIN stocks s ON s.code = m.code
		WHERE m.kind = ? AND m.block = ? ORDER BY m.code`, b.Kind, b.Name)
	if err != nil {
		return b, nil, classify(err, "read block members")
	}
	defer rows.Close()
	var out []Member
	for rows.Next() {
		var m Member
		if err := rows.Scan(&m.Code, &m.Name); err != nil {
			return b, nil, classify(err, "read block members")
		}
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		return b, nil, classify(err, "read block members")
	}
	return b, out, nil
}

// StockQuery selects a page of securities.
type StockQuery struct {
	Exchange market.Exchange
	Type     market.SecurityType
	Keyword  string // substring of code or name
	Offset   int
	Limit    int
}

// Stocks pages the known securities by code; it reports the total.
func (s *Store) Stocks(ctx context.Context, q StockQuery) (int, []Stock, error) {
	var f filter
	if q.Exchange != "" {
		f.and("exchange = ?", string(q.Exchange))
	}
	if q.Type != "" {
		f.and("type = ?", string(q.Type))
	}
	if q.Keyword != "" {
		like := likePattern(q.Keyword)
		f.and(`(lower(code) LIKE ? ESCAPE '\' OR lower(name) LIKE ? ESCAPE '\')`, like, like)
	}
	total, err := s.count(ctx, "stocks", f, "count stocks")
	if err != nil {
		return 0, nil, err
	}
	rows, err := s.r.QueryContext(ctx, `SELECT code, name, type, industry, listed_day, float_shares, source FROM stocks WHERE `+
		f.where()+` ORDER BY code LIMIT ? OFFSET ?`, append(f.args, q.Limit, q.Offset)...)
	if err != nil {
		return 0, nil, classify(err, "read stocks")
	}
	defer rows.Close()
	var out []Stock
	for rows.Next() {
		var st Stock
		var code, typ string
		var listed sql.NullInt64
		var float sql.NullFloat64
		if err := rows.Scan(&code, &st.Name, &typ, &st.Industry, &listed, &float, &st.Source); err != nil {
			return 0, nil, classify(err, "read stocks")
		}
		st.Code, _ = market.ParseCode(code)
		st.Type, st.Listed, st.FloatShares = market.SecurityType(typ), market.Day(listed.Int64), floatOrNaN(float)
		out = append(out, st)
	}
	return total, out, classify(rows.Err(), "read stocks")
}

// Membership maps each code to the names of its blocks of one kind, the
// smallest block first (in a hierarchy of industries, the most specific).
func (s *Store) Membership(ctx context.Context, kind string) (map[string][]string, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT m.code, m.block FROM block_members m JOIN blocks b ON b.kind = m.kind AND b.name = m.block
		WHERE m.kind = ? ORDER BY m.code, b.member_count, m.block`, kind)
	if err != nil {
		return nil, classify(err, "read membership")
	}
	defer rows.Close()
	out := map[string][]string{}
	for rows.Next() {
		var code, block string
		if err := rows.Scan(&code, &block); err != nil {
			return nil, classify(err, "read membership")
		}
		out[code] = append(out[code], block)
	}
	return out, classify(rows.Err(), "read membership")
}
