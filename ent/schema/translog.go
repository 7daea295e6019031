package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// LogHash is one stored hash of the transparency log's Merkle tree, at its
// tlog storage index. Hashes are only ever appended.
type LogHash struct{ ent.Schema }

func (LogHash) Fields() []ent.Field {
	return []ent.Field{
		field.String("origin").Immutable(),
		field.Int64("idx").Immutable(),
		field.Bytes("hash").Immutable(),
	}
}

func (LogHash) Indexes() []ent.Index {
	return []ent.Index{index.Fields("origin", "idx").Unique()}
}

// LogState is the head of a log: its size and latest signed checkpoint. Its
// row is locked while a batch is appended, so replicas never fork the log.
type LogState struct{ ent.Schema }

func (LogState) Fields() []ent.Field {
	return []ent.Field{
		field.String("origin").Unique().Immutable(),
		field.Int64("size").Default(0),
		field.Bytes("root_hash").Optional(),
		field.Text("checkpoint").Default(""),
		field.Time("updated_at").Default(now).UpdateDefault(now),
	}
}

// SigningKey holds the TSA and log key material of one log origin. Every
// replica loads it, so all sign with the same keys; retired origins stay
// published so old certificates keep verifying.
type SigningKey struct{ ent.Schema }

func (SigningKey) Fields() []ent.Field {
	return []ent.Field{
		field.String("origin").Unique().Immutable(),
		// The private keys, sealed under the master key (package
		// secrets); sealed again when the master key changes.
		field.Bytes("material").Sensitive(),
		// The master key material is sealed under; empty for material
		// stored in the clear before it was sealed, which the next start
		// seals.
		field.String("material_key_id").Default(""),
		field.Text("verifier_key").Immutable(),
		field.Text("tsa_root_pem").Immutable(),
		field.Text("tsa_cert_pem").Immutable(),
		field.Bool("current").Default(true),
		field.Time("created_at").Immutable().Default(now),
	}
}

// LogCosignature is the latest cosignature one witness (c2sp.org/tlog-witness)
// returned for a log: the checkpoint it cosigned, as the log signed it, and
// the witness's signature lines to append to it. One row per log and
// witness, replaced as the witness cosigns larger trees.
type LogCosignature struct{ ent.Schema }

func (LogCosignature) Fields() []ent.Field {
	return []ent.Field{
		field.String("origin").Immutable(),
		// The witness's signed-note verifier key (c2sp.org/signed-note).
		field.Text("witness_key").Immutable(),
		field.Int64("size"),
		// The log-signed checkpoint of the tree of that size.
		field.Text("checkpoint"),
		// The witness's tlog-cosignature lines ("— name base64\n").
		field.Text("cosignature"),
		field.Time("updated_at").Default(now).UpdateDefault(now),
	}
}

func (LogCosignature) Indexes() []ent.Index {
	return []ent.Index{index.Fields("origin", "witness_key").Unique()}
}
