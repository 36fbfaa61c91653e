package webhook

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"
)

// Event is one firing, in the shape GET /v1/api/alerts/events shows it,
// so a generic receiver reads the same objects a script polling the API
// reads.
type Event struct {
	ID        int64           `json:"id"`
	AlertID   string          `json:"alert_id"`
	AlertName string          `json:"alert_name"`
	Code      string          `json:"code"`
	Name      string          `json:"name"`
	FiredAt   string          `json:"fired_at"`
	Fields    json.RawMessage `json:"fields"`
}

// Message is what one delivery says: the events one evaluation of an
// alert fired, sent together (a burst of thirty codes is one chat message,
// not thirty: DingTalk takes 20 messages a minute per robot).
type Message struct {
	// Delivery is the X-Mdqs-Delivery id: the same on every try of a
	// delivery, so a receiver that got one twice can drop the second.
	Delivery   string
	AlertID    string
	AlertName  string
	Expression string
	Events     []Event
	Link       string // the dashboard's address; "": no link
	Test       bool   // a sample sent by POST /v1/api/alerts/webhook_test
	SentAt     string // Shanghai time, as fired_at
}

const (
	// maxListed codes are named in a chat message; the rest are counted.
	maxListed = 20
	// maxText bounds a chat message: WeCom's text takes 2048 bytes, the
	// smallest of the three.
	maxText = 2000
)

// Text is the message in Chinese, short: the alert's name, each code with
// its name and the values that matched, when it fired, and the link.
func (m Message) Text() string {
	var b strings.Builder
	name := m.AlertName
	if name == "" {
		name = m.AlertID
	}
	if m.Test {
		fmt.Fprintf(&b, "【mdqs 测试】%s\n这是一条测试消息：机器人设置正确，预警触发时会这样通知。\n", name)
	} else {
		fmt.Fprintf(&b, "【mdqs 预警】%s\n", name)
	}
	if len(m.Events) > 0 {
		fmt.Fprintf(&b, "%d 只股票触发，%s\n", len(m.Events), m.Events[0].FiredAt)
	}
	for i, e := range m.Events {
		if i == maxListed {
			fmt.Fprintf(&b, "……另有 %d 只\n", len(m.Events)-maxListed)
			break
		}
		b.WriteString(e.Code)
		if e.Name != "" {
			b.WriteString(" " + e.Name)
		}
		if f := fieldsText(e.Fields); f != "" {
			b.WriteString("  " + f)
		}
		b.WriteByte('\n')
	}
	if m.Expression != "" {
		fmt.Fprintf(&b, "条件：%s\n", m.Expression)
	}
	if m.Link != "" {
		fmt.Fprintf(&b, "查看：%s\n", m.Link)
	}
	return truncate(strings.TrimRight(b.String(), "\n"), maxText)
}

// fieldsText is the matched values as name=value, in name order.
func fieldsText(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var fields map[string]any
	if dec.Decode(&fields) != nil {
		return ""
	}
	names := make([]string, 0, len(fields))
	for k := range fields {
		names = append(names, k)
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, k := range names {
		v := fields[k]
		switch x := v.(type) {
		case nil:
			v = "-"
		case json.Number, string, bool:
		default:
			b, _ := json.Marshal(x)
			v = string(b)
		}
		parts[i] = fmt.Sprintf("%s=%v", k, v)
	}
	return strings.Join(parts, " ")
}

// truncate cuts s to at most n bytes on a character boundary, marking the cut.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	const mark = "……"
	cut := n - len(mark)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + mark
}

// genericBody is the JSON a generic receiver gets.
type genericBody struct {
	Delivery string  `json:"delivery"`
	Alert    idName  `json:"alert"`
	Events   []Event `json:"events"`
	Text     string  `json:"text"`
	Link     string  `json:"link,omitempty"`
	Test     bool    `json:"test"`
	SentAt   string  `json:"sent_at"`
}

type idName struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// textBody is DingTalk's and WeCom's text message: the same shape.
type textBody struct {
	MsgType string `json:"msgtype"`
	Text    struct {
		Content string `json:"content"`
	} `json:"text"`
}

// feishuBody is Feishu's text message, with the signature in the body.
type feishuBody struct {
	Timestamp string `json:"timestamp,omitempty"`
	Sign      string `json:"sign,omitempty"`
	MsgType   string `json:"msg_type"`
	Content   struct {
		Text string `json:"text"`
	} `json:"content"`
}
