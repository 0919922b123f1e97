-- Redirect loops: each URL that answered with a redirect remembers its target, so that when a target
-- is already known the crawler can walk the chain (target → its target → ...) and tell a loop
-- (the walk comes back to the URL that redirected) from a mere duplicate. NULL for every other URL.
ALTER TABLE frontier ADD COLUMN redirect_to TEXT;
