package ent

//go:generate go tool -modfile=../tools/go.mod ent generate --feature sql/upsert,sql/lock,sql/execquery,sql/modifier ./schema
