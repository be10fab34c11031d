// @name dangling_links
// @description Links to pages that do not exist, with the page and line of each occurrence.
// @columns target, page, line, raw
// @example {}
//
// Neo4j Browser: paste as is (no parameters).
MATCH (p:Page)-[l:LINKS_TO]->(d:Dangling)
RETURN d.name AS target, p.key AS page, l.line AS line, l.raw AS raw
ORDER BY target, page, line
