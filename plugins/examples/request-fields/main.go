// request-fields sets fields of request bodies from its config.
package main

import (
	"github.com/piwasm/pi/abi"
	sdk "github.com/piwasm/pi/sdk-guest"
)

var conf *config // decoded on the first call

func init() {
	sdk.OnBeforeProviderRequest(func(ev *abi.BeforeProviderRequestEvent) (abi.BeforeProviderRequestResult, error) {
		if conf == nil {
			c := config{}
			if err := sdk.Config(&c); err != nil {
				return sdk.KeepBody(), err
			}
			conf = &c
		}
		body, changed, err := conf.apply(ev.API, ev.Body)
		if err != nil || !changed {
			return sdk.KeepBody(), err
		}
		return sdk.SendBody(body), nil
	})
}

func main() {}
