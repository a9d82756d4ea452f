/**
 * Constants that operator expressions may use, with their units (the list of the data format doc).
 * `alpha_fs` and `alpha_k` are pure numbers. Kept in one place so the engine, the checker script and
 * the registry test agree on them.
 */
export const REGISTRY_CONSTANTS = Object.freeze({
    c0: '299792458 m/s',
    h_P: '6.62607015e-34 J s',
    hbar: '1.054571817e-34 J s',
    G_N: '6.6743e-11 m^3/(kg s^2)',
    k_B: '1.380649e-23 J/K',
    e0: '1.602176634e-19 C',
    N_A: '6.02214076e23 mol^-1',
    R_gas: '8.314462618 J/(mol K)',
    eps0: '8.8541878128e-12 F/m',
    mu0: '1.25663706212e-6 N/A^2',
    m_e: '9.1093837015e-31 kg',
    m_p: '1.67262192369e-27 kg',
    m_n: '1.67492749804e-27 kg',
    u_amu: '1.66053906660e-27 kg',
    sigma_SB: '5.670374419e-8 W/(m^2 K^4)',
    g0: '9.80665 m/s^2',
    F_far: '96485.33212 C/mol',
    a0_bohr: '5.29177210903e-11 m',
    R_inf: '10973731.568160 m^-1',
    alpha_fs: 7.2973525693e-3,
    Z0: '376.730313668 ohm',
    b_wien: '2.897771955e-3 m K',
    atm: '101325 Pa',
    AU: '1.495978707e11 m',
    M_sun: '1.98847e30 kg',
    R_earth: '6.371e6 m',
    M_earth: '5.9722e24 kg',
    H0: '2.2e-18 s^-1',
    tick_s: '0.777 s',
    alpha_k: 1e-3,
    pulse_hz: '1.287 Hz',
});
/** Id of the substrate operator that every compute applies first. */
export const SUBSTRATE_ID = 'KO42';
//# sourceMappingURL=registry-constants.js.map