import { plantedTasteSuite } from "./planted-taste.fixture.ts";

plantedTasteSuite("postgres");
