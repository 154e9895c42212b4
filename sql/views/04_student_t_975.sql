-- Two-sided 95 % quantile of Student's t with `df` degrees of freedom (t such that P(|T| <= t) =
-- 0.95), for confidence intervals of a mean over repeated runs: exact to 6 decimals up to 30
-- degrees of freedom, above that the Cornish-Fisher expansion (relative error below 1e-7).
CREATE OR REPLACE FUNCTION student_t_975(df integer)
RETURNS double precision
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE
    WHEN df IS NULL OR df < 1 THEN NULL
    WHEN df <= 30 THEN (ARRAY[12.706205, 4.302653, 3.182446, 2.776445, 2.570582, 2.446912, 2.364624, 2.306004,
      2.262157, 2.228139, 2.200985, 2.178813, 2.160369, 2.144787, 2.131450, 2.119905, 2.109816, 2.100922, 2.093024,
      2.085963, 2.079614, 2.073873, 2.068658, 2.063899, 2.059539, 2.055529, 2.051831, 2.048407, 2.045230,
      2.042272]::double precision[])[df]
    ELSE z + (z ^ 3 + z) / (4 * df) + (5 * z ^ 5 + 16 * z ^ 3 + 3 * z) / (96 * df ^ 2)
      + (3 * z ^ 7 + 19 * z ^ 5 + 17 * z ^ 3 - 15 * z) / (384 * df ^ 3)
      + (79 * z ^ 9 + 776 * z ^ 7 + 1482 * z ^ 5 - 1920 * z ^ 3 - 945 * z) / (92160 * df ^ 4)
  END
  FROM (SELECT 1.959963984540054::double precision AS z) normal
$$;
