package workflows_test

import (
	"testing"

	"github.com/creativeops/creativeops/engine/enginetest"
)

func TestInvariantsPhotographyLicensingQuote(t *testing.T) {
	enginetest.CheckWorkflow(t, "photography-licensing-quote")
}

func TestInputsMatterPhotographyLicensingQuote(t *testing.T) {
	enginetest.CheckInputsMatter(t, "photography-licensing-quote")
}

func TestInvariantsPhotographyPrintEditions(t *testing.T) {
	enginetest.CheckWorkflow(t, "photography-print-editions")
}

func TestInputsMatterPhotographyPrintEditions(t *testing.T) {
	enginetest.CheckInputsMatter(t, "photography-print-editions")
}
