package workflows

import "github.com/creativeops/creativeops/engine"

// disclosureRule is the advertising-disclosure rule of the plan's country
// from the jurisdiction table, as a sentence a recommendation can end
// with; where the table has none, the plan carries a JURISDICTION_UNKNOWN
// warning and the sentence says to check the local rule.
func disclosureRule(in *engine.Input, p *engine.Plan) string {
	if r, ok := in.Rule(p, engine.AreaAdvertising); ok {
		return "In " + in.Region().Name() + ": " + r.Rule + "."
	}
	return "No disclosure rule for " + in.Region().Name() + " is in the rule table: check the local advertising regulator's rule before publishing."
}
