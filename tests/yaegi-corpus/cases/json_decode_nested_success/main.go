package main

import (
	"encoding/json"
	"fmt"
	"time"
)

type Status string

type Line struct {
	SKU   string  `json:"sku"`
	Qty   int     `json:"qty,omitempty"`
	Price float64 `json:"price,string"`
}

type Order struct {
	ID      int               `json:"id"`
	Status  Status            `json:"status"`
	Lines   []Line            `json:"lines"`
	ByName  map[string]Line   `json:"by_name"`
	Note    *string           `json:"note"`
	Skip    string            `json:"-"`
	Tags    [2]string         `json:"tags"`
	At      time.Time         `json:"at"`
	Extra   map[string]any    `json:"extra"`
	Anon    struct{ A, B int } `json:"anon"`
	private int
}

func main() {
	raw := `[{"id":1,"STATUS":"paid","lines":[{"sku":"a","qty":2,"price":"1.5"},{"sku":"b","price":"3"}],
	  "by_name":{"x":{"sku":"x","qty":1,"price":"0.25"}},"note":"hi","Skip":"no","tags":["t1","t2","t3"],
	  "at":"2024-05-06T07:08:09Z","extra":{"k":[1,"two",null]},"anon":{"A":1,"b":2},"private":5,"unknown":true},
	  {"id":2,"status":"open","lines":null,"note":null}]`
	var orders []Order
	if err := json.Unmarshal([]byte(raw), &orders); err != nil {
		fmt.Println("error:", err)
		return
	}
	for _, o := range orders {
		note := "<nil>"
		if o.Note != nil {
			note = *o.Note
		}
		fmt.Println(o.ID, o.Status, len(o.Lines), o.ByName["x"].Price, note, o.Skip == "", o.Tags, o.At.Unix(), o.Anon.A+o.Anon.B, o.private)
		for _, l := range o.Lines {
			fmt.Println(" ", l.SKU, l.Qty, l.Price)
		}
		fmt.Println(" ", o.Extra["k"])
	}
	var byID map[string]Order
	err := json.Unmarshal([]byte(`{"a":{"id":7},"b":{"id":8,"status":"x"}}`), &byID)
	fmt.Println(err, byID["a"].ID, byID["b"].Status)
	var p *Order
	err = json.Unmarshal([]byte(`{"id":9}`), &p)
	fmt.Println(err, p.ID)
}
