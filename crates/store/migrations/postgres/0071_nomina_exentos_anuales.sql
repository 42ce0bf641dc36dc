-- What each receipt exempted under Art. 93 LISR's yearly limits (aguinaldo 30 UMA, PTU and
-- prima vacacional 15 UMA each), so that a later period of the same year exempts only what is
-- left. NULL when the receipt exempted nothing of the kind (the common case): the calculation
-- reads only the rows that did.
ALTER TABLE nomina_recibos ADD COLUMN exento_aguinaldo NUMERIC;
ALTER TABLE nomina_recibos ADD COLUMN exento_ptu NUMERIC;
ALTER TABLE nomina_recibos ADD COLUMN exento_prima_vacacional NUMERIC;
