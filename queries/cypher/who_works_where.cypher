// @name who_works_where
// @description People and the organization each is affiliated with, with the organizations that one is part of (PART_OF, transitively). Filter by an organization to get everyone under it, directly or through a sub-organization.
// @param organization string = null -- organization page key; null (the default) lists everyone
// @columns person, organization, part_of, asserted_on, line
// @example {}
// @example {"organization": "HKUST"}
//
// Neo4j Browser: first run
//   :param organization => 'HKUST'      (or  :param organization => null  for everyone)
MATCH (person:Person)-[a:AFFILIATED_WITH]->(org:Organization)
OPTIONAL MATCH (org)-[:PART_OF*1..10]->(parent:Organization)
WITH person, a, org, parent ORDER BY parent.key
WITH person, a, org, collect(DISTINCT parent.key) AS part_of
WHERE $organization IS NULL OR org.key = $organization OR $organization IN part_of
RETURN person.key AS person, org.key AS organization, part_of, a.asserted_by AS asserted_on,
       a.line AS line
ORDER BY organization, person
