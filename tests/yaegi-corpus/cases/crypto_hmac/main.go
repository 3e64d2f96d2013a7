package main

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
)

func main() {
	mac := hmac.New(sha256.New, []byte("secret"))
	mac.Write([]byte("message"))
	sum := mac.Sum(nil)
	fmt.Println(hex.EncodeToString(sum))
	other := hmac.New(sha256.New, []byte("secret"))
	other.Write([]byte("message"))
	fmt.Println(hmac.Equal(sum, other.Sum(nil)))
}
