package main

import (
	"encoding/json"
	"fmt"
)

type Address struct {
	City string `json:"city"`
	Zip  string `json:"zip,omitempty"`
}

type User struct {
	ID       int      `json:"id"`
	Name     string   `json:"name"`
	Email    string   `json:"email,omitempty"`
	Tags     []string `json:"tags"`
	Address  *Address `json:"address,omitempty"`
	password string
	Skip     string `json:"-"`
}

func main() {
	u := User{ID: 1, Name: "Ann", Tags: []string{"a", "b"}, Address: &Address{City: "Oslo"}, password: "x", Skip: "y"}
	b, err := json.Marshal(u)
	fmt.Println(string(b), err)
	b, _ = json.MarshalIndent([]User{{ID: 2, Name: "Bo"}}, "", "  ")
	fmt.Println(string(b))
}
