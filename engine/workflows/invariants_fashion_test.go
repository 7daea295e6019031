package workflows_test

import (
	"testing"

	"github.com/creativeops/creativeops/engine/enginetest"
)

func TestInvariantsFashionCosting(t *testing.T) { enginetest.CheckWorkflow(t, "fashion-costing") }

func TestInputsMatterFashionCosting(t *testing.T) {
	enginetest.CheckInputsMatter(t, "fashion-costing")
}

func TestInvariantsFashionWholesaleCalendar(t *testing.T) {
	enginetest.CheckWorkflow(t, "fashion-wholesale-calendar")
}

func TestInputsMatterFashionWholesaleCalendar(t *testing.T) {
	enginetest.CheckInputsMatter(t, "fashion-wholesale-calendar")
}
