-- Up Migration
-- The digest of the sql/views files a migrate last applied: commands other than `paasmon migrate`
-- apply them again only when the files differ from it (or a migration ran), and skip the work at
-- their start otherwise. One row at most.
CREATE TABLE IF NOT EXISTS paasmon_view_files (
  single     boolean     PRIMARY KEY DEFAULT true CHECK (single),
  digest     text        NOT NULL,
  applied_at timestamptz NOT NULL DEFAULT now()
);
