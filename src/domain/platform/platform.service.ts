export interface PlatformService {
  placeholder?: never;
}
