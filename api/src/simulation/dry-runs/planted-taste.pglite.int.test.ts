import { plantedTasteSuite } from "./planted-taste.fixture.ts";

// The arms compared at full size here; on PostgreSQL, the learned arm served (planted-taste.fixture.ts).
plantedTasteSuite("pglite", { compare: true });
