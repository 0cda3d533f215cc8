import { plantedTasteSuite } from "./planted-taste.fixture.ts";

// The learned arm served on PostgreSQL; the arms are compared on PGlite (planted-taste.fixture.ts).
plantedTasteSuite("postgres", { compare: false });
