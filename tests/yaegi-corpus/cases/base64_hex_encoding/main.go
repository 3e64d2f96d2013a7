package main

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"
)

func main() {
	s := "kode-gopher ✓"
	enc := base64.StdEncoding.EncodeToString([]byte(s))
	fmt.Println(enc, base64.URLEncoding.EncodeToString([]byte{0xfb, 0xff}))
	dec, err := base64.StdEncoding.DecodeString(enc)
	fmt.Println(string(dec), err)
	fmt.Println(hex.EncodeToString([]byte("hi")), hex.Dump([]byte("abc"))[:20])
	_, err = hex.DecodeString("zz")
	fmt.Println(err)
}
