package main

import (
	"fmt"
)

type Account struct {
	Balance int
	History []int
}

func (a *Account) Deposit(n int) { a.Balance += n; a.History = append(a.History, n) }
func (a Account) Snapshot() int  { return a.Balance }

func main() {
	acc := Account{}
	acc.Deposit(10)
	acc.Deposit(5)
	copyAcc := acc
	copyAcc.Deposit(100)
	fmt.Println(acc.Snapshot(), copyAcc.Snapshot(), len(acc.History), len(copyAcc.History))
	accounts := map[string]*Account{"x": {}}
	accounts["x"].Deposit(7)
	fmt.Println(accounts["x"].Balance)
}
