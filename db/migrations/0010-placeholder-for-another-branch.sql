-- Placeholder: another branch adds migration 0010. Migrations must be numbered without gaps, so this
-- branch (polite) holds the number with this no-op until the merge; the integrator drops this file then.
SELECT 1;
