export interface ChainService {
  placeholder?: never;
}
