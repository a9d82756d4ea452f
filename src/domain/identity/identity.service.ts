export interface IdentityService {
  placeholder?: never;
}
