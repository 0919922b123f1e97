-- Personal capture: what a person kept (bookmarks, documents) and how they filed it.
-- seeds.title and seeds.folder: an imported bookmark's title and its folder path as the browser showed it
-- ("Bookmarks bar / Dev / Rust"); null for a seed typed into the form.
-- seed_labels: a seed's labels (an imported bookmark's folders, or added by hand); server/capture/label.ts
-- says what a label may be. They are what the person submitted, so the server writes them, never the
-- crawler; a seed's row deleted by the crawler takes its labels with it.
-- pages.file_type: what kind of document a page is ('html', 'pdf', 'text', 'markdown'), for filetype: and the
-- results' marks; pages.page_starts: for a PDF, a JSON array of the character offsets (code points) in body
-- where each of its pages starts, so a snippet can say which page it is from.
ALTER TABLE seeds ADD COLUMN title TEXT;
ALTER TABLE seeds ADD COLUMN folder TEXT;
CREATE TABLE seed_labels (
  seed_id INTEGER NOT NULL REFERENCES seeds(id) ON DELETE CASCADE,
  label   TEXT    NOT NULL,
  PRIMARY KEY (seed_id, label)
) WITHOUT ROWID;
CREATE INDEX seed_labels_label ON seed_labels (label, seed_id);
ALTER TABLE pages ADD COLUMN file_type TEXT NOT NULL DEFAULT 'html';
ALTER TABLE pages ADD COLUMN page_starts TEXT;
